// `npm start` (tools/stack) as a child process with every member on a free port, for the specs that
// test the system as an operator runs it (the CLI's integration tests, e2e/local). They reach it only
// over HTTP and its files, as an operator would.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startChildProcess } from '@sandbox/process';
import { parentEnv } from './config';
import { findFreePort } from './free-port';
import { waitFor } from './wait-for';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Every port variable of the stack (tools/stack/src/config.ts). */
export const STACK_PORT_VARIABLES = [
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
export type StackPortVariable = (typeof STACK_PORT_VARIABLES)[number];

/** A running stack. */
export interface StackProcess {
  readonly ports: Readonly<Record<StackPortVariable, number>>;
  readonly dataDir: string;
  /** Everything the stack printed so far (the last `keepChars`). */
  output(): string;
  /** The management API token file of a role, as the stack generated it (`<data>/secrets/<role>-token`). */
  tokenFile(role: 'admin' | 'read'): string;
  /** `{ authorization: 'Bearer …' }` with the management token of a role. */
  headers(role: 'admin' | 'read'): Promise<{ authorization: string }>;
  /** Sends a signal and resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /**
   * SIGTERM (the stack stops every member and the app instances), SIGKILL to its group after a
   * minute; removes its data folder.
   */
  cleanup(): Promise<void>;
}

/** Options of {@link startStack}. */
export interface StartStackOptions {
  /** The stack's environment (PATH and HOME are the caller's unless given here). */
  env?: Record<string, string>;
  /** @defaultValue 180_000 */
  readyTimeoutMs?: number;
  /** Output kept for {@link StackProcess.output}. @defaultValue 1_000_000 */
  keepChars?: number;
}

/** Starts the stack on free ports (so it never meets one a developer runs) and waits until it is ready. */
export async function startStack(options: StartStackOptions = {}): Promise<StackProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stack-spec-'));
  const ports = {} as Record<StackPortVariable, number>;
  for (const name of STACK_PORT_VARIABLES) ports[name] = await findFreePort();
  const { PATH = '', HOME = '' } = parentEnv();
  const child = startChildProcess(process.execPath, ['--import', 'tsx', 'tools/stack/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH,
      HOME,
      ...options.env,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      STACK_DATA_DIR: dataDir,
    },
    keepChars: options.keepChars ?? 1_000_000,
  });
  const exit = child.exited.then((ended) => ended.code);
  const tokenFile = (role: 'admin' | 'read') => join(dataDir, 'secrets', `${role}-token`);
  const stack: StackProcess = {
    ports,
    dataDir,
    output: () => child.output(),
    tokenFile,
    headers: async (role) => ({ authorization: `Bearer ${await readFile(tokenFile(role), 'utf8')}` }),
    stop: (signal = 'SIGINT') => {
      child.signal(signal);
      return exit;
    },
    cleanup: async () => {
      await child.stop(60_000);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(() => child.output().includes('all members are ready') || !child.isRunning(), {
      timeoutMs: options.readyTimeoutMs ?? 180_000,
      intervalMs: 200,
      description: 'the stack to be ready',
    });
  } catch (error) {
    await stack.cleanup();
    throw new Error(`the stack was not ready in time:\n${child.output().slice(-5_000)}`, { cause: error });
  }
  if (!child.isRunning()) {
    await stack.cleanup();
    throw new Error(`the stack exited during start-up:\n${child.output()}`);
  }
  return stack;
}
