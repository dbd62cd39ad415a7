import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcessHandle } from '@sandbox/process';
import { startTsProcess, waitForHttpReady } from '@sandbox/testing';
import { inheritedEnv } from './config';

/** The repository root (this file is tools/redeemer-sim/src/system/). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** A TypeScript entry point run as its own process (`node --import tsx <entry>`). */
export interface ServiceProcess {
  readonly name: string;
  readonly handle: ChildProcessHandle;
  /** Everything it printed (stdout and stderr), for secret scans and failure messages. */
  output(): string;
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
  /** SIGKILL to its process group: no shutdown hook runs. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts `entry` (relative to the repository root) with `args` and exactly `env` (plus PATH and HOME). */
export function spawnService(
  name: string,
  entry: string,
  env: Record<string, string>,
  args: readonly string[] = [],
): ServiceProcess {
  const child = startTsProcess(join(REPO_ROOT, entry), args, {
    cwd: REPO_ROOT,
    env: { ...inheritedEnv(), DRAIN_DELAY_MS: '0', ...env },
  });
  return {
    name,
    handle: child,
    output: child.output,
    exited: child.exited.then((exit) => exit.code),
    isRunning: child.isRunning,
    kill9: async () => void (await child.kill()),
    stop: async (graceMs = 15_000) => (await child.stop(graceMs)).code,
  };
}

/** Waits until `GET <url>/readyz` answers 200, failing early (with its output) if the process exits. */
export async function waitReady(service: ServiceProcess, url: string, timeoutMs = 60_000): Promise<void> {
  await waitForHttpReady(service.handle, `${url}/readyz`, {
    description: `${service.name} to be ready at ${url}`,
    timeoutMs,
  });
}
