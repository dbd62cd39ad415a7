import { CliError } from '../cli/errors';
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
  /** Pause between polls. @defaultValue 500 */
  intervalMs?: number;
  /** The progress in words, for the timeout message. */
  describe?: (progress: P) => string;
  /** Compares two progress values. @defaultValue JSON equality */
  same?: (a: P, b: P) => boolean;
}

/** Polls until done or the deadline (then exit 1 with the last progress). */
export async function waitUntil<P>(io: CliIo, options: WaitOptions<P>): Promise<P> {
  const deadline = io.now() + options.timeoutMs;
  const same = options.same ?? ((a: P, b: P) => JSON.stringify(a) === JSON.stringify(b));
  let last: P | undefined;
  for (;;) {
    const { done, progress } = await options.check();
    if (last === undefined || !same(last, progress)) options.report(progress);
    last = progress;
    if (done) return progress;
    if (io.now() >= deadline) {
      const last = options.describe ? ` (${options.describe(progress)})` : '';
      throw new CliError(`timed out after ${duration(options.timeoutMs)} waiting for ${options.what}${last}`);
    }
    await io.sleep(options.intervalMs ?? 500);
  }
}
