import { backoffDelay } from '@sandbox/service-kit';

/** Which kind of failure: an instance that did not start, or one Node refused to register. */
export type FailureKind = 'start' | 'registration';

/** Options of {@link createFailureBackoff}. */
export interface FailureBackoffOptions {
  /** @defaultValue 1000 */
  baseMs?: number;
  /** @defaultValue 60000 */
  maxMs?: number;
}

/**
 * Per-app backoff after failures, so an app whose image does not start or whose offer Node refuses
 * is not recreated in a tight loop. Start failures are forgiven when an instance becomes ready,
 * registration failures when a session is reserved (proof that Node accepted the offer) or the spec
 * changes. Kept in memory: a restart forgives everything once.
 */
export function createFailureBackoff(options: FailureBackoffOptions = {}) {
  const baseMs = options.baseMs ?? 1_000;
  const maxMs = options.maxMs ?? 60_000;
  const state = new Map<string, { start: number; registration: number; until: number }>();
  const entry = (app: string) => {
    let found = state.get(app);
    if (!found) state.set(app, (found = { start: 0, registration: 0, until: 0 }));
    return found;
  };
  return {
    /** Records a failure; returns when creating may resume. */
    failed(app: string, kind: FailureKind, now: number): number {
      const found = entry(app);
      found[kind] += 1;
      const count = Math.max(found.start, found.registration);
      found.until = now + backoffDelay(count, { initialMs: baseMs, maxMs, jitter: 'none' });
      return found.until;
    },
    forgive(app: string, kind: FailureKind | 'all'): void {
      const found = state.get(app);
      if (!found) return;
      if (kind === 'all' || kind === 'start') found.start = 0;
      if (kind === 'all' || kind === 'registration') found.registration = 0;
      if (found.start === 0 && found.registration === 0) state.delete(app);
    },
    /** Milliseconds until creating may resume (0: now). */
    waitMs(app: string, now: number): number {
      return Math.max(0, (state.get(app)?.until ?? 0) - now);
    },
  };
}

export type FailureBackoff = ReturnType<typeof createFailureBackoff>;
