import type { O2RMessage } from '@sandbox/protocol';
import { backoffDelay, realSchedule, type BackoffOptions, type Schedule } from '@sandbox/service-kit';
import { defaultHttpTransport, type HttpTransport } from './http-transport';
import { O2RDelivery } from './o2r-delivery';
import { readTrickleSegment, type TrickleReadOutcome } from './trickle-read';

/** Default time without any O2R segment (Node sends a keepalive every 10 s) before reconnecting. */
export const DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS = 25_000;

/** Why the subscriber stopped for good: the channel is unknown (404) or Node closed it. */
export type O2REndReason = 'gone' | 'closed';

/** Diagnostics of a subscriber, for logs and metrics. */
export type O2RSubscriberEvent =
  | { type: 'gap'; requestedSeq: number; resumeSeq: number }
  | { type: 'reconnect'; reason: 'keepalive-timeout' | 'network' | 'status'; status?: number }
  | { type: 'invalid-message'; seq: number; issue: string }
  | { type: 'delivery-failed'; seq: number; error: unknown }
  | { type: 'end'; reason: O2REndReason };

/** Options of {@link createO2RSubscriber}. */
export interface O2RSubscriberOptions {
  /** The O2R channel URL Node returned (`o2r.url`). */
  url: string;
  /** First sequence number to read. @defaultValue 0 (a new channel) */
  startSeq?: number;
  /**
   * Called for every message, in order, one at a time; if it throws, the same message is delivered
   * again after a backoff. Reads do not wait for it: the next segment is already requested while a
   * message is handled (Node keeps only a few segments).
   */
  onMessage(message: O2RMessage, seq: number): void | Promise<void>;
  onEvent?(event: O2RSubscriberEvent): void;
  /** @defaultValue {@link DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS} */
  keepaliveTimeoutMs?: number;
  /** Backoff after failed requests and deliveries. @defaultValue 250 ms doubling to 5 s */
  retry?: BackoffOptions;
  /** @defaultValue {@link defaultHttpTransport} */
  transport?: HttpTransport;
  /** Timers for the watchdog and backoffs. @defaultValue the real clock */
  schedule?: Schedule;
  /** Milliseconds clock. @defaultValue `Date.now` */
  now?: () => number;
}

/** A running O2R subscription. */
export interface O2RSubscriber {
  readonly url: string;
  /** The next sequence number not yet handed to `onMessage` (persist this to resume after a restart). */
  readonly seq: number;
  /** When the last segment (keepalive or event) arrived. */
  readonly lastMessageAt: number | undefined;
  /** True while a long-poll is waiting on Node. */
  readonly connected: boolean;
  /** Resolves once the subscription is over: ended by Node, or stopped. */
  readonly done: Promise<O2REndReason | 'stopped'>;
  /** Stops polling (aborting the request in flight); resolves once the loop has exited. */
  stop(): Promise<void>;
}

type PollOutcome = TrickleReadOutcome | { type: 'lost'; reason: 'keepalive-timeout' | 'network' };

/**
 * Follows a runner's O2R trickle channel by long-polling `GET <url>/<seq>`: one message per segment,
 * in order. The next segment is always requested as soon as one arrives, before that one is handled.
 * On 470 (the segment was evicted, or is too far ahead) it resumes from `Lp-Trickle-Latest`; on 404
 * or a closed channel it ends, after handing over what it read; on network errors and other statuses
 * it retries with backoff; when no segment arrives for `keepaliveTimeoutMs` (Node publishes a
 * keepalive every 10 s) it drops the request and polls again. Starts at once.
 */
export function createO2RSubscriber(options: O2RSubscriberOptions): O2RSubscriber {
  return new O2RSubscription(options);
}

class O2RSubscription implements O2RSubscriber {
  readonly url: string;
  readonly done: Promise<O2REndReason | 'stopped'>;
  seq: number;
  lastMessageAt: number | undefined;
  connected = false;
  private readSeq: number;
  private readonly base: string;
  private readonly transport: HttpTransport;
  private readonly schedule: Schedule;
  private readonly now: () => number;
  private readonly retry: BackoffOptions;
  private readonly delivery: O2RDelivery;
  private quietSince: number;
  private stopped = false;
  private current: AbortController | undefined;
  private readonly wakers = new Set<() => void>();

  constructor(private readonly options: O2RSubscriberOptions) {
    this.url = options.url;
    this.base = options.url.replace(/\/+$/u, '');
    this.seq = options.startSeq ?? 0;
    this.readSeq = this.seq;
    this.transport = options.transport ?? defaultHttpTransport;
    this.schedule = options.schedule ?? realSchedule;
    this.now = options.now ?? Date.now;
    this.retry = options.retry ?? { initialMs: 250, maxMs: 5_000 };
    this.quietSince = this.now();
    this.delivery = new O2RDelivery({
      onMessage: (message, seq) => options.onMessage(message, seq),
      onPosition: (seq) => void (this.seq = seq),
      onGap: (requestedSeq, resumeSeq) => this.emit({ type: 'gap', requestedSeq, resumeSeq }),
      onInvalid: (seq, issue) => this.emit({ type: 'invalid-message', seq, issue }),
      onDeliveryFailed: (seq, error) => this.emit({ type: 'delivery-failed', seq, error }),
      pause: (ms) => this.pause(ms),
      retry: this.retry,
    });
    this.done = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort();
    for (const wake of [...this.wakers]) wake();
    this.delivery.finish();
    await this.done;
  }

  private emit(event: O2RSubscriberEvent): void {
    this.options.onEvent?.(event);
  }

  /** The reader and the delivery run side by side; an end is reported once everything read was handed over. */
  private async run(): Promise<O2REndReason | 'stopped'> {
    const reading = this.readLoop().finally(() => this.delivery.finish());
    await this.delivery.run(() => this.stopped);
    const outcome = await reading;
    if (this.stopped || outcome === 'stopped') return 'stopped';
    this.emit({ type: 'end', reason: outcome });
    return outcome;
  }

  private async readLoop(): Promise<O2REndReason | 'stopped'> {
    let failures = 0;
    while (!this.stopped) {
      await this.delivery.room();
      if (this.stopped) break;
      const outcome = await this.pollOnce();
      if (this.stopped) break;
      if (outcome.type === 'end') return outcome.reason;
      if (outcome.type === 'lost' || outcome.type === 'retry') {
        const reason = outcome.type === 'lost' ? outcome.reason : 'status';
        this.emit({
          type: 'reconnect',
          reason,
          ...(outcome.type === 'retry' ? { status: outcome.status } : {}),
        });
        // After a watchdog abort the same read is simply repeated; errors back off.
        if (reason !== 'keepalive-timeout') await this.pause(backoffDelay((failures += 1), this.retry));
        continue;
      }
      failures = 0;
      if (outcome.type === 'move') {
        this.delivery.push({ type: 'move', seq: outcome.seq, gap: outcome.gap, from: this.readSeq });
        this.readSeq = outcome.seq;
        continue;
      }
      this.lastMessageAt = this.now();
      this.quietSince = this.lastMessageAt;
      this.delivery.push({ type: 'segment', seq: outcome.seq, text: outcome.text });
      this.readSeq = outcome.seq + 1;
    }
    return 'stopped';
  }

  /** One long-poll, under the keepalive watchdog. */
  private async pollOnce(): Promise<PollOutcome> {
    const controller = new AbortController();
    this.current = controller;
    let watchdogFired = false;
    const watchdog = this.schedule(
      () => {
        watchdogFired = true;
        controller.abort();
      },
      Math.max(
        0,
        this.quietSince + (this.options.keepaliveTimeoutMs ?? DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS) - this.now(),
      ),
    );
    this.connected = true;
    try {
      return await readTrickleSegment(this.transport, this.base, this.readSeq, controller.signal);
    } catch {
      if (!watchdogFired) return { type: 'lost', reason: 'network' };
      this.quietSince = this.now();
      return { type: 'lost', reason: 'keepalive-timeout' };
    } finally {
      this.connected = false;
      watchdog.cancel();
      this.current = undefined;
    }
  }

  /** Waits `ms`, or less if stopped. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.wakers.delete(wake);
        timer.cancel();
        resolve();
      };
      const timer = this.schedule(wake, ms);
      this.wakers.add(wake);
    });
  }
}
