// The adapter's main.ts as a real child process, for process-level specs and the benchmark.
import type { ChildExit } from '@sandbox/process';
import { startChildProcess } from '@sandbox/process';
import type { MemoryCgroup } from '@sandbox/testing';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleNodeApp } from '@sandbox/sandbox-local/testing';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** A running `main.ts`. */
export interface AdapterProcess {
  readonly pid: number | undefined;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): Promise<number | string>;
}

const codeOrSignal = (exit: ChildExit): number | string => exit.code ?? exit.signal ?? 'unknown';

/**
 * Spawns `node --import tsx apps/adapter/src/main.ts` (or plain `node <bundle>` when a bundle is
 * given) with exactly `env` (nothing inherited; no drain delay unless `env` sets one), inside
 * `cgroup` when one is given.
 */
export function spawnAdapter(
  env: Record<string, string>,
  options: { bundle?: string; nodeArgs?: string[]; cgroup?: MemoryCgroup } = {},
): AdapterProcess {
  const entry = options.bundle === undefined ? ['--import', 'tsx', MAIN] : [options.bundle];
  const args = [...(options.nodeArgs ?? []), ...entry];
  const line = options.cgroup?.wrap(process.execPath, args) ?? { command: process.execPath, args };
  const child = startChildProcess(line.command, line.args, { env: { DRAIN_DELAY_MS: '0', ...env } });
  const exited = child.exited.then(codeOrSignal);
  return {
    pid: child.pid,
    output: child.output,
    exited,
    kill(signal) {
      if (signal === 'SIGKILL') void child.kill();
      else child.signal(signal);
      return exited;
    },
  };
}

/** Bundles main.ts and its dependencies into one ES module file, exactly as its image does. */
export async function bundleAdapter(outfile: string): Promise<string> {
  await writeFile(outfile, await bundleNodeApp(MAIN));
  return outfile;
}
