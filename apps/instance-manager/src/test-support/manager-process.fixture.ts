import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answers200, startChildProcess, waitUntilReady } from '@sandbox/process';

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

/**
 * Starts main.ts with exactly the given environment (include PATH and HOME) and waits until /readyz
 * is 200. `nodeArgs` go before the entry, e.g. `['--import', <preload>]`.
 */
export async function startManagerProcess(
  env: Record<string, string>,
  port: number,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [],
): Promise<ManagerProcess> {
  const child = startChildProcess(process.execPath, [...nodeArgs, '--import', 'tsx', MAIN], {
    // One replica restarted in place (as a pod's container): it takes its lease back at once.
    env: { DRAIN_DELAY_MS: '0', LEASE_HOLDER_ID: 'instance-manager-0', ...env, PORT: String(port) },
    keepChars: 20_000,
  });
  const handle: ManagerProcess = {
    port,
    output: child.output,
    kill9: async () => void (await child.kill()),
    async stop() {
      child.signal('SIGTERM');
      return (await child.exited).code;
    },
  };
  try {
    await waitUntilReady(child, () => answers200(`http://127.0.0.1:${port}/readyz`), {
      description: 'instance-manager to be ready',
      timeoutMs,
      outputChars: 2_000,
    });
  } catch (error) {
    await handle.kill9();
    throw error;
  }
  return handle;
}
