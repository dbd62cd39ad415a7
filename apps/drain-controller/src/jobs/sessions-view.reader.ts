import { SessionsViewSchema, sessionsViewKey, type DrainSessions } from '@sandbox/protocol';

/**
 * What the drain knows of the sessions at Node: the counts, or `unknown` and why. An unknown is never
 * "no sessions": a drain waits on it (until the view is back, or its deadline).
 */
export type SessionsReading = { known: true; sessions: DrainSessions } | { known: false; reason: string };

/** Reads the sessions Node reports on our runners. */
export type SessionsSource = () => Promise<SessionsReading>;

const unknown = (reason: string): SessionsReading => ({ known: false, reason });

/**
 * The adapter's sessions view (`<adapter STATE_PREFIX>:sessions-view`), read fail-closed: a missing
 * key (never written, or expired because the adapter is gone), a document that is not the protocol's,
 * one observed more than `maxAgeMs` from Redis's clock (a stuck writer, a skewed clock) or one with
 * runners Node has not reported yet is unknown. A Redis error is thrown (the step logs it and looks
 * again). Age is judged by the clock of the Redis both sides share, not this process's: the drain's
 * own clock is a seam that specs move, and the view's only reference is the adapter's wall clock.
 */
export function sessionsViewSource(deps: {
  /** The producer connection (ioredis): `TIME` answers seconds and microseconds. */
  redis: { get(key: string): Promise<string | null>; time(): Promise<Array<number | string>> };
  adapterStatePrefix: string;
  maxAgeMs: number;
}): SessionsSource {
  const key = sessionsViewKey(deps.adapterStatePrefix);
  return async () => {
    const text = await deps.redis.get(key);
    const [seconds, micros] = await deps.redis.time();
    if (text === null) return unknown('no sessions view from the adapter (missing or expired)');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return unknown('the sessions view is not JSON');
    }
    const parsed = SessionsViewSchema.safeParse(json);
    if (!parsed.success) return unknown('the sessions view does not match its schema');
    const { total, byApp, unreported, observedAt } = parsed.data;
    const ageMs = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000) - Date.parse(observedAt);
    if (!Number.isFinite(ageMs)) return unknown('Redis gave no usable time to judge the view by');
    if (Math.abs(ageMs) > deps.maxAgeMs)
      return unknown(`the sessions view is stale (observed ${ageMs} ms before Redis's time)`);
    if (unreported > 0) return unknown(`Node has not yet reported the sessions of ${unreported} runners`);
    return { known: true, sessions: { total, byApp, observedAt } };
  };
}
