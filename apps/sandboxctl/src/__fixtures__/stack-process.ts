// The system as `npm start` runs it (tools/stack), every member on a free port, for the CLI's
// integration tests. The CLI reaches it only over HTTP, as an operator would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startChildProcess } from '@sandbox/process';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = resolve(import.meta.dirname, '../../../..');

/** Every port variable of the stack (tools/stack/src/config.ts). */
export const PORT_VARIABLES = [
  'DASHBOARD_PORT',
  'INSTANCE_MANAGER_PORT',
  'ADAPTER_PORT',
  'DRAIN_CONTROLLER_PORT',
  'REDEMPTION_HANDOFF_PORT',
  'VERIFIER_PORT',
  'REDEEMER_SIM_PORT',
  'REDIS_PORT',
  'NODE_SIM_PORT',
  'NODE_SIM_METRICS_PORT',
] as const;

/** A running stack. */
export interface StackProcess {
  readonly ports: Readonly<Record<(typeof PORT_VARIABLES)[number], number>>;
  /** The management API token file of a role, as the stack generated it (`<data>/secrets/<role>-token`). */
  tokenFile(role: 'admin' | 'read'): string;
  output(): string;
  /** SIGTERM to the supervisor (it stops every member in reverse order); removes its data folder. */
  cleanup(): Promise<void>;
}

/** What {@link startStack} needs from the test: free ports and the environment to pass on (PATH, HOME). */
export interface StackOptions {
  ports: Record<(typeof PORT_VARIABLES)[number], number>;
  env: Record<string, string>;
}

/** Starts the stack and waits (up to 3 minutes) until every member is ready. */
export async function startStack({ ports, env }: StackOptions): Promise<StackProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandboxctl-stack-'));
  const child = startChildProcess(process.execPath, ['--import', 'tsx', 'tools/stack/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...env,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      STACK_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    keepChars: 50_000,
  });
  const stack: StackProcess = {
    ports,
    tokenFile: (role) => join(dataDir, 'secrets', `${role}-token`),
    output: () => child.output(),
    cleanup: async () => {
      // The supervisor stops every member (and the app instances) on SIGTERM; its group is killed after the grace.
      await child.stop(60_000);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 180_000;
  while (!child.output().includes('all members are ready')) {
    if (!child.isRunning()) throw new Error(`the stack exited during start-up:\n${child.output()}`);
    if (Date.now() > deadline) {
      await stack.cleanup();
      throw new Error(`the stack was not ready in 3 minutes:\n${child.output().slice(-5_000)}`);
    }
    await sleep(200);
  }
  return stack;
}

/** Starts the stack with every member on a port from `freePort` (the test library's `findFreePort`). */
export async function startStackOnFreePorts(
  freePort: () => Promise<number>,
  env: Record<string, string>,
): Promise<StackProcess> {
  const ports = Object.fromEntries(
    await Promise.all(PORT_VARIABLES.map(async (name) => [name, await freePort()] as const)),
  ) as StackOptions['ports'];
  return startStack({ ports, env });
}
