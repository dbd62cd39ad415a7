import type { CurrentResult, EvaluationAttempt, TargetStatus } from '@sandbox/protocol';

/** What the store keeps per target: the result it is judged by and the latest attempts. */
export interface TargetRecord {
  runnerId: string;
  app: string;
  current: (Omit<CurrentResult, 'state'> & { state: 'pass' | 'fail' | 'unknown' }) | null;
  attempts: EvaluationAttempt[];
}

/** Attempts kept per target. */
export const MAX_ATTEMPTS = 20;

/** A finished attempt and, when one was written, its report's validity. */
export interface AttemptOutcome {
  attempt: EvaluationAttempt;
  validUntil: string | null;
}

/**
 * Applies one attempt (RFC 5861 stale-if-error, for the platform's own errors):
 * - a pass becomes current;
 * - a target failure or an unknown outcome becomes current at once, hiding any older pass;
 * - a platform failure (or an attempt without report) leaves the current result as it is, never
 *   extending its `validUntil`, and marks it carried forward.
 * Every attempt is recorded, newest first.
 */
export function applyAttempt(
  record: TargetRecord | undefined,
  outcome: AttemptOutcome,
  target: { runnerId: string; app: string },
): TargetRecord {
  const { attempt } = outcome;
  const { runnerId, app } = target;
  const base: TargetRecord = record ?? { runnerId, app, current: null, attempts: [] };
  const attempts = [attempt, ...base.attempts].slice(0, MAX_ATTEMPTS);
  const platform =
    attempt.attribution === 'platform' || attempt.reportId === null || outcome.validUntil === null;
  if (platform) {
    const current = base.current ? { ...base.current, carriedForward: true } : null;
    return { runnerId, app, current, attempts };
  }
  const state = attempt.status === 'pass' ? 'pass' : attempt.attribution === 'unknown' ? 'unknown' : 'fail';
  return {
    runnerId,
    app,
    attempts,
    current: {
      state,
      reportId: attempt.reportId as string,
      attribution: attempt.attribution,
      reasonCode: attempt.reasonCode,
      finishedAt: attempt.finishedAt,
      validUntil: outcome.validUntil as string,
      carriedForward: false,
    },
  };
}

/** The public view at `nowMs`: a current result past its `validUntil` is shown as expired. */
export function targetView(record: TargetRecord, nowMs: number): TargetStatus {
  const current = record.current;
  return {
    runnerId: record.runnerId,
    app: record.app,
    attempts: record.attempts,
    current:
      current === null
        ? null
        : { ...current, state: Date.parse(current.validUntil) <= nowMs ? 'expired' : current.state },
  };
}
