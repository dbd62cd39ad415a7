import { isNodeRequestError } from '@sandbox/node-client';
import type { Logger } from 'pino';
import type { NodeCallKind } from '../../metrics/adapter-metrics';
import type { BeatTimer, Next } from '../agent/beat-timer';
import type { CallStats } from './call-stats';
import type { RegistrationRecord } from '../state/registration-record';
import type { HeartbeatSender } from './heartbeat-sender';
import type { SessionTracker } from '../sessions/session-tracker';

/** What the steps act on: one registration's parts. */
export interface StepContext {
  record: RegistrationRecord;
  link: HeartbeatSender;
  stats: CallStats;
  timer: BeatTimer;
  tracker: SessionTracker;
  logger: Logger;
  now: () => number;
  intervalMs(): number;
  reloadBootstrapSecret(): void;
  persist(): Promise<void>;
}

/**
 * The moves a registration makes with Node, each deciding when the next run is due: register with
 * the bootstrap secret, heartbeat with the runner's credential, unregister. Node's answers map to
 * the rules: 503 and network errors are retried inside the interval; 401 re-registers with
 * the same runner id; 400 and 403 are final.
 */
export class NodeSteps {
  /** The last unregistration was a drain's: the next registration is a resume. */
  private parkedByDrain = false;

  constructor(private readonly context: StepContext) {}

  async register(capacity: number): Promise<Next> {
    const { context } = this;
    const sentMark = context.tracker.mark();
    const reason = !context.record.registeredOnce ? 'initial' : this.parkedByDrain ? 'resume' : 're-register';
    try {
      const result = await context.link.register(capacity, context.intervalMs(), reason);
      context.stats.succeeded('bootstrap', result.latencyMs, capacity);
      this.parkedByDrain = false;
      context.timer.registered(result.intervalMs);
      await this.reconcile(result.response.session_ids, sentMark, 're-register');
      return 'periodic';
    } catch (error) {
      if (!(isNodeRequestError(error) && error.unauthorized)) return this.failedCall('bootstrap', error);
      // A wrong or rotated bootstrap secret, or Node still holds a registration whose credential
      // was lost: try again at Node's pace (re-reading the secret file), never as a refused spec.
      context.stats.failed('bootstrap', error);
      context.reloadBootstrapSecret();
      return 'slow-retry';
    }
  }

  async beat(capacity: number): Promise<Next> {
    const { context } = this;
    const sentMark = context.tracker.mark();
    try {
      const result = await context.link.beat(capacity);
      context.stats.succeeded('heartbeat', result.latencyMs, capacity);
      context.timer.beat(result.intervalMs);
      await this.reconcile(result.response.session_ids, sentMark, 'heartbeat-reconcile');
      return 'periodic';
    } catch (error) {
      if (!(isNodeRequestError(error) && error.unauthorized)) return this.failedCall('heartbeat', error);
      // Node does not know this credential: it restarted, expired or closed the registration,
      // and its sessions went with it. Register again at once, with the same runner id.
      context.stats.failed('heartbeat', error);
      context.logger.info('Node no longer knows the runner; registering again');
      context.link.unlink('re-register');
      return 'now';
    }
  }

  async unregister(park: boolean): Promise<Next> {
    const { context } = this;
    try {
      const latencyMs = await context.link.unregister();
      context.stats.succeeded('unregister', latencyMs);
      context.link.unlink('unregister');
      this.parkedByDrain = park;
      context.logger.info({ park }, 'runner unregistered from Node');
      return 'now';
    } catch (error) {
      return this.failedCall('unregister', error);
    }
  }

  private async reconcile(
    ids: readonly string[],
    sentMark: number,
    source: 're-register' | 'heartbeat-reconcile',
  ): Promise<void> {
    await this.context.tracker.reconcile(ids, sentMark, source).catch((error: unknown) => {
      this.context.logger.warn(
        { err: error },
        'session changes not published yet; the next heartbeat retries',
      );
    });
  }

  /** A failed call: Node's 400/403 on a registration or heartbeat is final, anything else is retried. */
  private failedCall(kind: NodeCallKind, error: unknown): Next {
    const { context } = this;
    context.stats.failed(kind, error);
    if (!(isNodeRequestError(error) && error.permanent && kind !== 'unregister')) return 'retry';
    const status = error.status === 403 ? 403 : 400;
    const at = new Date(context.now()).toISOString();
    context.record.phase = 'failed';
    context.record.failure = { status, reason: error.reason, at, reported: false };
    context.logger.error({ status, reason: error.reason }, 'Node refused the registration');
    void context.persist();
    return 'now';
  }
}
