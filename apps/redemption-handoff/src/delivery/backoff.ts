import { backoffDelay } from '@sandbox/service-kit';

/** Options of {@link retryDelay}. */
export interface RetryDelayInput {
  /** Attempts made so far (1 after the first failure). */
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
  /** The redeemer asked for at least this much (429 Retry-After). */
  readonly minimumMs?: number;
  readonly now: number;
  readonly deadlineAt: number;
  /** Uniform in [0, 1). @defaultValue Math.random */
  readonly random?: () => number;
}

/**
 * Capped exponential backoff with jitter ("equal jitter": half fixed, half random, so retries of tickets
 * that failed together spread out without collapsing to zero): min(cap, base·2^(attempts-1)) · [0.5, 1).
 * Never later than the ticket's deadline, so the last try happens when the deadline passes and ends
 * the ticket as expired undelivered.
 */
export function retryDelay(input: RetryDelayInput): number {
  const options = { initialMs: input.baseMs, maxMs: input.capMs };
  const backoff = backoffDelay(input.attempts, input.random ? { ...options, random: input.random } : options);
  const jittered = Math.max(backoff, input.minimumMs ?? 0);
  const untilDeadline = Math.max(input.deadlineAt - input.now, 0);
  return Math.max(1, Math.floor(Math.min(jittered, untilDeadline)));
}
