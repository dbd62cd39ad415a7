import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcessHandle } from './child-process';
import { describeExit } from './exit';

/** Options of {@link waitUntilReady}. */
export interface WaitUntilReadyOptions {
  /** What is awaited, for the error message, e.g. `adapter to be ready`. */
  description: string;
  timeoutMs: number;
  /** @defaultValue 100 */
  intervalMs?: number;
  /** Characters of the child's output the error carries. @defaultValue 3_000 */
  outputChars?: number;
}

/**
 * Polls `probe` until it resolves true, failing at once if the child exits first (a probe that throws
 * counts as "not yet"). The error says what was awaited, how the child ended and what it printed last.
 */
export async function waitUntilReady(
  child: Pick<ChildProcessHandle, 'isRunning' | 'exited' | 'output'>,
  probe: () => Promise<boolean>,
  options: WaitUntilReadyOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const tail = () => {
    const output = child.output().slice(-(options.outputChars ?? 3_000));
    return output === '' ? '' : `:\n${output}`;
  };
  while (child.isRunning()) {
    if (await probe().catch(() => false)) return;
    if (Date.now() >= deadline) {
      throw new Error(`gave up waiting for ${options.description} after ${options.timeoutMs} ms${tail()}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
  const exit = await child.exited;
  throw new Error(`gave up waiting for ${options.description}: it exited (${describeExit(exit)})${tail()}`);
}

/** A probe: true when `GET url` answers 200 within a second. */
export async function answers200(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  await response.body?.cancel();
  return response.status === 200;
}
