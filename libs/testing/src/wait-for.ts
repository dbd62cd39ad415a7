import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** What is awaited, for the failure message. */
  description: string;
  /** Deadline from the first call. @defaultValue 5000 */
  timeoutMs?: number;
  /** Pause between two polls. @defaultValue 25 */
  intervalMs?: number;
}

/**
 * Polls `predicate` until it returns a truthy value, and resolves with that value. A throwing
 * predicate counts as "not yet". Fails with the description, the elapsed time and the last error
 * once the deadline has passed, so a stuck test says what it was waiting for.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  { description, timeoutMs = 5_000, intervalMs = 25 }: WaitForOptions,
): Promise<NonNullable<T>> {
  const started = Date.now();
  let lastError: unknown;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) {
      const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${elapsed} ms (${attempt} polls) waiting for ${description}${reason}`);
    }
    await sleep(Math.min(intervalMs, timeoutMs - elapsed));
  }
}
