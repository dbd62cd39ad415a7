import {
  createO2RSubscriber,
  type HttpTransport,
  type O2RSubscriber,
  type O2RSubscriberEvent,
} from '@sandbox/node-client';
import { isO2RSessionEvent, type O2RMessage } from '@sandbox/protocol';
import type { Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';
import type { AdapterMetrics } from '../../metrics/adapter-metrics';
import type { O2RSlots } from './o2r-slots';
import type { RegistrationRecord } from '../state/registration-record';
import type { SessionTracker } from './session-tracker';

/** Dependencies of an {@link O2RFollower}. */
export interface O2RFollowerDeps {
  /** Shared cap on concurrent subscriptions (Node's streaming slots). */
  o2rSlots: O2RSlots;
  metrics: AdapterMetrics;
  logger: Logger;
  now: () => number;
  schedule: Schedule;
  o2rKeepaliveTimeoutMs: number;
  transport?: HttpTransport;
}

/** The registration an {@link O2RFollower} serves. */
export interface O2ROwner {
  record: RegistrationRecord;
  tracker: SessionTracker;
  persist(): void;
  poke(): void;
}

/**
 * Follows the O2R channel of the runner's current registration. Each registration has its own
 * channel: after every re-registration the follower is restarted on the new one (never left on the
 * old one, as the Python SDK can be). Session events go to the tracker; the position is saved after
 * each one, so a restarted adapter resumes where it was.
 */
export class O2RFollower {
  subscriber: O2RSubscriber | undefined;
  /** The channel ended (404 or closed) and no new registration has given another one yet. */
  ended = false;
  /** Queued for a subscription slot (see {@link O2RSlots}). */
  awaitingSlot = false;

  constructor(
    private readonly deps: O2RFollowerDeps,
    private readonly owner: O2ROwner,
  ) {}

  get connected(): boolean {
    return this.subscriber?.connected ?? false;
  }

  /** (Re)starts on the registration's channel, from its saved position (once a slot is free). */
  start(): void {
    const link = this.owner.record.node;
    void this.stop();
    this.ended = false;
    if (link?.o2rUrl == null) return;
    this.awaitingSlot = !this.deps.o2rSlots.acquire(this, () => this.start());
    if (this.awaitingSlot) return;
    const holder: { sub?: O2RSubscriber } = {};
    holder.sub = createO2RSubscriber({
      url: link.o2rUrl,
      startSeq: link.o2rSeq,
      keepaliveTimeoutMs: this.deps.o2rKeepaliveTimeoutMs,
      schedule: this.deps.schedule,
      now: this.deps.now,
      ...(this.deps.transport === undefined ? {} : { transport: this.deps.transport }),
      onMessage: (message, seq) => this.onMessage(holder.sub, message, seq),
      onEvent: (event) => this.onEvent(holder.sub, event),
    });
    this.subscriber = holder.sub;
  }

  /** Stops without waiting by default (never awaited under the session lock: a delivery may hold it). */
  stop(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.awaitingSlot = false;
    this.deps.o2rSlots.release(this);
    return subscriber === undefined ? Promise.resolve() : subscriber.stop();
  }

  private async onMessage(sub: O2RSubscriber | undefined, message: O2RMessage, seq: number): Promise<void> {
    if (sub !== this.subscriber || this.owner.record.node === null) return;
    if (isO2RSessionEvent(message)) {
      this.deps.metrics.o2rLag((this.deps.now() - Date.parse(message.timestamp)) / 1_000);
      await this.owner.tracker.applyO2R(message);
    }
    const link = this.owner.record.node;
    if (sub !== this.subscriber || link === null) return;
    link.o2rSeq = seq + 1;
    // Keepalives move the position in memory only; it is saved with the next change.
    if (isO2RSessionEvent(message)) this.owner.persist();
  }

  private onEvent(sub: O2RSubscriber | undefined, event: O2RSubscriberEvent): void {
    const { logger, metrics } = this.deps;
    switch (event.type) {
      case 'gap':
        metrics.o2rGap(event.resumeSeq - event.requestedSeq);
        logger.info(
          { from: event.requestedSeq, to: event.resumeSeq },
          'O2R segments lost; resumed at the latest, heartbeating at once',
        );
        // Node evicted events before they were read (a burst faster than one read's round trip):
        // its heartbeat answer lists the sessions it has, so the next beat corrects the set now.
        if (sub === this.subscriber) this.owner.poke();
        return;
      case 'reconnect':
        metrics.o2rReconnect(event.reason);
        if (event.reason === 'keepalive-timeout') logger.warn('O2R keepalives stopped; reconnecting');
        return;
      case 'invalid-message':
        logger.warn({ seq: event.seq, issue: event.issue }, 'O2R message ignored');
        return;
      case 'delivery-failed':
        logger.warn({ seq: event.seq, err: event.error }, 'O2R event not published yet; retrying');
        return;
      case 'end':
        if (sub !== this.subscriber) return;
        this.subscriber = undefined;
        this.deps.o2rSlots.release(this);
        this.ended = true;
        logger.info({ reason: event.reason }, 'O2R channel ended; checking the registration');
        this.owner.poke();
    }
  }
}
