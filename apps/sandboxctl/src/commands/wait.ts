import { CliError, ServiceError, UnreachableError } from '../cli/errors';
import type { CliIo } from '../cli/runtime';
import { duration } from '../output/format-values';

/** Options of {@link waitUntil}. */
export interface WaitOptions<P> {
  timeoutMs: number;
  /** What is awaited, for the timeout message (`app/echo to be ready`). */
  what: string;
  /** One poll; `progress` is shown whenever it changes. */
  check: () => Promise<{ done: boolean; progress: P }>;
  report: (progress: P) => void;
  /** Told once per outage when a poll fails in a way worth retrying (the wait goes on). */
  retrying?: (reason: string) => void;
  /** Pause between polls. @defaultValue 500 */
  intervalMs?: number;
  /** The progress in words, for the timeout message. */
  describe?: (progress: P) => string;
  /** Compares two progress values. @defaultValue JSON equality */
  same?: (a: P, b: P) => boolean;
}

/** A service restarting or briefly unreachable should not end a wait of minutes; a 4xx should. */
function isTransient(error: unknown): error is CliError {
  return error instanceof UnreachableError || (error instanceof ServiceError && error.status >= 500);
}

/** Polls until done or the deadline (then exit 1 with the last progress), riding out transient failures. */
export async function waitUntil<P>(io: CliIo, options: WaitOptions<P>): Promise<P> {
  const deadline = io.now() + options.timeoutMs;
  const same = options.same ?? ((a: P, b: P) => JSON.stringify(a) === JSON.stringify(b));
  let last: P | undefined;
  let outage: string | undefined;
  for (;;) {
    try {
      const { done, progress } = await options.check();
      outage = undefined;
      if (last === undefined || !same(last, progress)) options.report(progress);
      last = progress;
      if (done) return progress;
    } catch (error) {
      if (!isTransient(error) || io.now() >= deadline) throw error;
      if (outage === undefined) options.retrying?.(error.message);
      outage = error.message;
    }
    if (io.now() >= deadline) {
      const state = last !== undefined && options.describe ? ` (${options.describe(last)})` : '';
      throw new CliError(
        `timed out after ${duration(options.timeoutMs)} waiting for ${options.what}${state}`,
      );
    }
    await io.sleep(options.intervalMs ?? 500);
  }
}
