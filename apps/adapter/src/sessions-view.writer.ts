import {
  SESSIONS_VIEW_INTERVAL_MS,
  SESSIONS_VIEW_TTL_MS,
  SessionsViewSchema,
  sessionsViewKey,
  type RunnerView,
  type SessionsView,
} from '@sandbox/protocol';
import type { Clock, TimerHandle } from '@sandbox/service-kit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** States in which a runner is registered at Node, so Node may hold sessions on it. */
const AT_NODE: ReadonlySet<RunnerView['state']> = new Set(['registered', 'capped', 'unregistering']);

/** The view of `runners` at `now`: sessions per app and in total, and runners Node has not reported yet. */
export function sessionsViewOf(runners: readonly RunnerView[], now: number): SessionsView {
  const byApp: Record<string, number> = {};
  let total = 0;
  let unreported = 0;
  for (const runner of runners) {
    // Sessions live in memory: until Node's first answer to this process, an empty list means "not heard".
    if (AT_NODE.has(runner.state) && runner.lastBeat === null) unreported += 1;
    if (runner.sessions.length === 0) continue;
    byApp[runner.app] = (byApp[runner.app] ?? 0) + runner.sessions.length;
    total += runner.sessions.length;
  }
  return { total, byApp, unreported, observedAt: new Date(now).toISOString() };
}

/** Dependencies of {@link createSessionsViewWriter}. */
export interface SessionsViewWriterDeps {
  /** A connection that fails fast when Redis is away (the producer's). */
  redis: Redis;
  /** The adapter's STATE_PREFIX. */
  statePrefix: string;
  runners: () => RunnerView[];
  clock: Pick<Clock, 'now' | 'every'>;
  logger: Logger;
  /** @defaultValue {@link SESSIONS_VIEW_INTERVAL_MS} */
  intervalMs?: number;
  /** @defaultValue {@link SESSIONS_VIEW_TTL_MS} */
  ttlMs?: number;
}

/** The periodic writer; only the lease holder runs it (a standby knows no sessions). */
export interface SessionsViewWriter {
  start(): void;
  /** Stops writing; the last view expires on its own, so a successor's fresh view is never deleted. */
  stop(): void;
  /** Writes the view once (the loop's body). */
  writeOnce(): Promise<void>;
}

/**
 * Writes the sessions view to Redis with an expiry every interval, for the drain-controller. A write
 * that fails is logged once per outage and tried again at the next tick; a tick while the last write
 * is still in flight is skipped, so a slow Redis never piles writes up.
 */
export function createSessionsViewWriter(deps: SessionsViewWriterDeps): SessionsViewWriter {
  const key = sessionsViewKey(deps.statePrefix);
  const ttlMs = deps.ttlMs ?? SESSIONS_VIEW_TTL_MS;
  let timer: TimerHandle | undefined;
  let inFlight = false;
  let failing = false;

  const writeOnce = async (): Promise<void> => {
    const view = SessionsViewSchema.parse(sessionsViewOf(deps.runners(), deps.clock.now()));
    await deps.redis.set(key, JSON.stringify(view), 'PX', ttlMs);
  };
  const tick = (): void => {
    if (inFlight) return;
    inFlight = true;
    writeOnce()
      .then(() => {
        if (failing) deps.logger.info({ key }, 'sessions view written again');
        failing = false;
      })
      .catch((error: unknown) => {
        if (!failing) deps.logger.warn({ err: error, key }, 'cannot write the sessions view; retrying');
        failing = true;
      })
      .finally(() => (inFlight = false));
  };

  return {
    start() {
      if (timer !== undefined) return;
      tick();
      timer = deps.clock.every(deps.intervalMs ?? SESSIONS_VIEW_INTERVAL_MS, tick);
    },
    stop() {
      timer?.cancel();
      timer = undefined;
    },
    writeOnce,
  };
}
