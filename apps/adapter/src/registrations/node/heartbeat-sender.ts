import {
  isNodeRequestError,
  NodeRequestError,
  type HttpTransport,
  type HeartbeatResult,
  type RunnerClient,
} from '@sandbox/node-client';
import type { SessionEventSource } from '@sandbox/protocol';
import type { Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';
import type { BootstrapSecret } from '../../bootstrap-secret';
import type { AdapterMetrics, RegistrationReason } from '../../metrics/adapter-metrics';
import { heartbeatBody } from './heartbeat-body';
import { O2RFollower, type O2ROwner } from '../sessions/o2r-follower';
import type { O2RSlots } from '../sessions/o2r-slots';
import type { RegistrationRecord } from '../state/registration-record';

/** Dependencies shared by every runner's link to Node. */
export interface SenderDeps {
  client: RunnerClient;
  bootstrap: BootstrapSecret;
  /** Node's URL for registrations (later calls use the `orchestrator` base Node returns). */
  nodeUrl: string;
  metrics: AdapterMetrics;
  logger: Logger;
  now: () => number;
  schedule: Schedule;
  random: () => number;
  /** Longest request timeout; the effective one also stays well below Node's interval. */
  maxRequestTimeoutMs: number;
  o2rKeepaliveTimeoutMs: number;
  /** Shared cap on concurrent O2R subscriptions. */
  o2rSlots: O2RSlots;
  /** For the O2R long-polls. @defaultValue the node-client's shared keep-alive transport */
  transport?: HttpTransport;
}

/** The registration a link serves. */
export type SenderOwner = O2ROwner;

/** Request timeout for a heartbeat interval: 60 % of it, within [100 ms, max]. */
export function requestTimeoutFor(intervalMs: number, maxMs: number): number {
  return Math.min(maxMs, Math.max(100, Math.floor(intervalMs * 0.6)));
}

/**
 * Sends one runner's calls to Node: registration (a heartbeat with the bootstrap secret), every
 * later heartbeat, unregistration, and starts its O2R subscription on each new registration. The credential lives in `record.node` only (and in Redis); it is never
 * put in a log field, an error message, a metric or a view. It is deliberately not registered with
 * the log scrubber: with 256 runners that would make every log line run a regex of over a thousand
 * alternatives, rebuilt on every registration; the bootstrap secret is registered (main.ts).
 */
export class HeartbeatSender {
  readonly o2r: O2RFollower;

  constructor(
    private readonly deps: SenderDeps,
    private readonly owner: SenderOwner,
  ) {
    this.o2r = new O2RFollower(deps, owner);
  }

  private get record(): RegistrationRecord {
    return this.owner.record;
  }

  timeoutMs(intervalMs: number): number {
    return requestTimeoutFor(intervalMs, this.deps.maxRequestTimeoutMs);
  }

  /** Registers with the bootstrap secret and the runner's own id; starts O2R on the new channel. */
  async register(capacity: number, intervalMs: number, reason: RegistrationReason): Promise<HeartbeatResult> {
    const { instance, runnerId } = this.record;
    const result = await this.deps.client.heartbeat({
      baseUrl: this.deps.nodeUrl,
      credential: this.deps.bootstrap.value(),
      body: heartbeatBody(instance, runnerId, capacity, this.owner.tracker.ids()),
      timeoutMs: this.timeoutMs(intervalMs),
    });
    const { heartbeat_secret: credential, o2r, orchestrator } = result.response;
    if (credential === undefined) {
      throw new NodeRequestError('invalid-response', 'registration answered without a heartbeat secret', {
        status: 200,
        route: 'heartbeat',
      });
    }
    this.record.node = {
      credential,
      orchestrator,
      intervalMs: result.intervalMs,
      ttlMs: result.ttlMs,
      o2rUrl: o2r?.url ?? null,
      o2rSeq: 0,
    };
    this.record.registeredOnce = true;
    this.owner.persist();
    this.deps.metrics.registration(reason);
    this.deps.logger.info({ runnerId, reason, intervalMs: result.intervalMs }, 'runner registered with Node');
    this.o2r.start();
    return result;
  }

  /** One heartbeat with the runner's credential. A 401 rejects like any failure (the caller re-registers). */
  async beat(capacity: number): Promise<HeartbeatResult> {
    const link = this.requireNode();
    const result = await this.deps.client.heartbeat({
      baseUrl: link.orchestrator,
      credential: link.credential,
      body: heartbeatBody(this.record.instance, this.record.runnerId, capacity, this.owner.tracker.ids()),
      timeoutMs: this.timeoutMs(link.intervalMs),
    });
    if (link.intervalMs !== result.intervalMs || link.ttlMs !== result.ttlMs) {
      link.intervalMs = result.intervalMs;
      link.ttlMs = result.ttlMs;
      this.owner.persist();
    }
    const { o2r } = this;
    if (o2r.subscriber === undefined && !o2r.ended && !o2r.awaitingSlot) o2r.start();
    return result;
  }

  /** Unregisters; a 401 or 404 means Node no longer has the runner, which is the goal too. */
  async unregister(): Promise<number> {
    const link = this.requireNode();
    const started = performance.now();
    try {
      await this.deps.client.unregister({
        baseUrl: link.orchestrator,
        runnerId: this.record.runnerId,
        credential: link.credential,
        timeoutMs: this.timeoutMs(link.intervalMs),
      });
    } catch (error) {
      if (!(isNodeRequestError(error) && error.unauthorized)) throw error;
    }
    return performance.now() - started;
  }

  /** Forgets the registration (Node no longer has it): O2R stops and every session ended. */
  unlink(source: SessionEventSource): void {
    const link = this.record.node;
    if (link === null) return;
    void this.o2r.stop();
    this.owner.tracker.dropAll(source);
    this.record.node = null;
    this.owner.persist();
  }

  private requireNode() {
    const link = this.record.node;
    if (link === null) throw new Error('runner is not registered');
    return link;
  }
}
