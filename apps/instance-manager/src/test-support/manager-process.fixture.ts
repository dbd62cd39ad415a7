import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'main.ts');

/** The instance-manager as a real process (main.ts), in its own process group. */
export interface ManagerProcess {
  readonly port: number;
  /** SIGKILL to the whole group (podman children included), as a crash would. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  readonly output: () => string;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts main.ts with exactly the given environment (include PATH and HOME) and waits until /readyz is 200. */
export async function startManagerProcess(
  env: Record<string, string>,
  port: number,
  timeoutMs = 60_000,
): Promise<ManagerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { DRAIN_DELAY_MS: '0', ...env, PORT: String(port) },
  });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const handle: ManagerProcess = {
    port,
    output: () => output,
    async kill9() {
      if (child.pid && child.exitCode === null && child.signalCode === null)
        process.kill(-child.pid, 'SIGKILL');
      await exited(child);
    },
    async stop() {
      if (child.pid && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited(child);
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`instance-manager exited with ${child.exitCode}: ${output.slice(-2_000)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return handle;
    if (Date.now() > deadline) {
      await handle.kill9();
      throw new Error(`instance-manager not ready in time: ${output.slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
