import { performance } from 'node:perf_hooks';
import { realSchedule } from '@sandbox/service-kit';
import type { LeaseGate, LeaseGateHandlers, Schedule } from '@sandbox/service-kit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { LeaseTimings } from './lease-config';
import { leaseKeys, withLeaseCommands } from './lease-scripts';
import type { LeaseKeys, LeaseRedis } from './lease-scripts';

/** What the holder writes with: its fencing token and the exact lease value. */
export interface LeaseHolding {
  readonly token: number;
  readonly holderId: string;
  /** `"<token> <holder>"`, the lease's value in Redis while this holding lasts. */
  readonly value: string;
}

/** The states of one elector: it holds at most once, then ends (the service restarts as a standby). */
export type LeaseState = 'idle' | 'standby' | 'active' | 'ended';

/** A Redis lease contended for by one process; see {@link createLeaseElector}. */
export interface LeaseElector extends LeaseGate {
  readonly keys: LeaseKeys;
  readonly holderId: string;
  readonly timings: LeaseTimings;
  readonly state: LeaseState;
  /** The holding while active and its renew deadline has not passed (checked now, not by a timer). */
  holding(): LeaseHolding | undefined;
  /** The connection with the lease's commands (fenced writes go through it). */
  readonly redis: LeaseRedis;
}

/** Options of {@link createLeaseElector}. */
export interface LeaseElectorOptions {
  /** Use a fail-fast connection (`enableOfflineQueue: false`): a renewal must fail, not queue. */
  redis: Redis;
  /** The lease's key (its counter, fence and log sit beside it). Persistent. */
  key: string;
  holderId: string;
  timings: LeaseTimings;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** @defaultValue the real clock */
  schedule?: Schedule;
  /** A monotonic clock in ms. @defaultValue `performance.now` */
  now?: () => number;
}

/**
 * Creates a lease elector in the manner of Kubernetes' leader election, on Redis:
 *
 * - standby: every `retryPeriodMs`, tries to acquire (SET NX PX with a new fencing token from INCR);
 * - active: every `retryPeriodMs`, renews (PEXPIRE only while the value is still its holding); when no
 *   renewal *sent* in the last `renewDeadlineMs` succeeded, or one finds the lease gone, it calls
 *   `onLost` and ends. Since the TTL counts from when Redis received the acquisition or renewal, and
 *   that is after it was sent, the holder gives up at least `ttlMs - renewDeadlineMs` before any other
 *   process can acquire: that margin is the time the service has to stop acting;
 * - `release()` stops contending and deletes the lease if it is still this holding.
 *
 * Writes that matter go through {@link fencedExec}, which Redis refuses for a stale token.
 */
export function createLeaseElector(options: LeaseElectorOptions): LeaseElector {
  const { timings, logger, holderId } = options;
  const redis = withLeaseCommands(options.redis);
  const keys = leaseKeys(options.key);
  const schedule = options.schedule ?? realSchedule;
  const now = options.now ?? (() => performance.now());
  let state: LeaseState = 'idle';
  let current: { holding: LeaseHolding; renewedAt: number } | undefined;
  let handlers: LeaseGateHandlers | undefined;
  let tick: { cancel(): void } | undefined;
  let deadline: { cancel(): void } | undefined;

  const armDeadline = (): void => {
    deadline?.cancel();
    if (current === undefined) return;
    const left = current.renewedAt + timings.renewDeadlineMs - now();
    deadline = schedule(() => lose('renew deadline passed'), Math.max(0, left));
  };

  const end = (): void => {
    state = 'ended';
    tick?.cancel();
    deadline?.cancel();
  };

  const lose = (reason: string): void => {
    if (state !== 'active' || current === undefined) return;
    const lost = current.holding;
    current = undefined;
    end();
    logger.warn({ lease: keys.lease, fencingToken: lost.token, reason }, 'lease lost');
    handlers?.onLost(reason);
    // Frees the lease at once if Redis still has it as ours (a slow Redis, not a taken lease).
    void redis.sandboxLeaseRelease(keys.lease, lost.value).catch(() => undefined);
  };

  const acquire = async (sentAt: number): Promise<void> => {
    const [token, held] = await redis.sandboxLeaseAcquire(keys.lease, keys.counter, holderId, timings.ttlMs);
    if (state !== 'standby') {
      // Released while the acquisition was in flight: free what it took rather than block a TTL.
      if (token !== 0) await redis.sandboxLeaseRelease(keys.lease, `${token} ${holderId}`);
      return;
    }
    if (token === 0) {
      logger.info({ lease: keys.lease, heldBy: held.split(' ').slice(1).join(' ') }, 'lease held elsewhere');
      return;
    }
    current = { holding: { token, holderId, value: `${token} ${holderId}` }, renewedAt: sentAt };
    state = 'active';
    armDeadline();
    logger.info({ lease: keys.lease, fencingToken: token }, 'lease acquired');
    handlers?.onActive();
  };

  const renew = async (sentAt: number): Promise<void> => {
    const mine = current;
    if (mine === undefined) return;
    const renewed = await redis.sandboxLeaseRenew(keys.lease, mine.holding.value, timings.ttlMs);
    if (current !== mine) return;
    if (renewed !== 1) return lose('lease taken');
    if (sentAt > mine.renewedAt) mine.renewedAt = sentAt;
    armDeadline();
  };

  const attempt = singleFlight(schedule, timings.renewDeadlineMs, async () => {
    const sentAt = now();
    try {
      await (state === 'active' ? renew(sentAt) : acquire(sentAt));
    } catch (error) {
      logger.warn({ lease: keys.lease, state, err: error }, 'lease attempt failed');
    }
  });

  const loop = (): void => {
    if (state === 'ended') return;
    attempt();
    tick = schedule(loop, timings.retryPeriodMs);
  };

  return {
    keys,
    holderId,
    timings,
    redis,
    get state() {
      return state;
    },
    holding() {
      if (state !== 'active' || current === undefined) return undefined;
      // Timers fire late in a stalled event loop; the deadline itself is what counts.
      if (now() - current.renewedAt >= timings.renewDeadlineMs) return undefined;
      return current.holding;
    },
    run(runHandlers) {
      if (state !== 'idle') throw new Error('lease elector already running');
      handlers = runHandlers;
      state = 'standby';
      // A fail-fast connection refuses commands until it is connected: the first attempt waits for it
      // rather than failing and costing a whole retry period.
      if (redis.status === 'ready') loop();
      else redis.once('ready', loop);
    },
    async release() {
      const held = current?.holding;
      current = undefined;
      end();
      if (held === undefined) return;
      await redis.sandboxLeaseRelease(keys.lease, held.value);
      logger.info({ lease: keys.lease, fencingToken: held.token }, 'lease released');
    },
  };
}

/**
 * Runs `step` unless the previous run is still in flight. A run stuck longer than `stuckAfterMs` (a
 * stalled Redis) no longer blocks the next; its late reply still counts from when it was sent.
 */
function singleFlight(schedule: Schedule, stuckAfterMs: number, step: () => Promise<void>): () => void {
  let inFlight = false;
  return () => {
    if (inFlight) return;
    inFlight = true;
    const stuck = schedule(() => (inFlight = false), stuckAfterMs);
    void step().finally(() => {
      stuck.cancel();
      inFlight = false;
    });
  };
}
