import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@sandbox/testing';
import { inheritedEnv } from './config';

/** The repository root (this file is tools/redeemer-sim/src/system/). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** A TypeScript entry point run as its own process (`node --import tsx <entry>`). */
export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it printed (stdout and stderr), for secret scans and failure messages. */
  output(): string;
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
  /** SIGKILL: no shutdown hook runs. */
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
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, entry), ...args], {
    cwd: REPO_ROOT,
    env: { ...inheritedEnv(), DRAIN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    output: () => chunks.join(''),
    exited,
    isRunning,
    async kill9() {
      if (isRunning()) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 15_000) {
      if (!isRunning()) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Waits until `GET <url>/readyz` answers 200, failing early (with its output) if the process exits. */
export async function waitReady(service: ServiceProcess, url: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      if (!service.isRunning()) {
        throw new Error(`${service.name} exited before it was ready:\n${service.output().slice(-3_000)}`);
      }
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      return response.status === 200;
    },
    { description: `${service.name} to be ready at ${url}`, timeoutMs, intervalMs: 100 },
  ).catch((error: unknown) => {
    if (!service.isRunning()) throw new Error(`${service.name} exited:\n${service.output().slice(-3_000)}`);
    throw error;
  });
}
