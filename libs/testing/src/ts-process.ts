import {
  answers200,
  startChildProcess,
  waitUntilReady,
  type ChildProcessHandle,
  type ChildProcessOptions,
} from '@sandbox/process';

/** Options of {@link startTsProcess}. */
export interface TsProcessOptions extends ChildProcessOptions {
  /** Node flags before the entry, e.g. `['--import', '<preload>']`. */
  nodeArgs?: readonly string[];
}

/**
 * Runs a TypeScript entry point as its own process (`node --import tsx <entry> <args>`), in its own
 * process group and with exactly `options.env`, through the project's one child-process helper.
 */
export function startTsProcess(
  entry: string,
  args: readonly string[] = [],
  options: TsProcessOptions = {},
): ChildProcessHandle {
  const { nodeArgs = [], ...rest } = options;
  return startChildProcess(process.execPath, ['--import', 'tsx', ...nodeArgs, entry, ...args], rest);
}

/** Waits until `GET url` answers 200, failing at once (with the child's output) if the child exits. */
export function waitForHttpReady(
  child: ChildProcessHandle,
  url: string,
  options: { description?: string; timeoutMs?: number } = {},
): Promise<void> {
  return waitUntilReady(child, () => answers200(url), {
    description: options.description ?? `${url} to answer 200`,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}
