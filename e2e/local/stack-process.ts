import { startChildProcess } from '@sandbox/process';
import { findFreePort, waitFor } from '@sandbox/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

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
export type PortVariable = (typeof PORT_VARIABLES)[number];

/** `npm start`'s supervisor running as a child process, every member on a free port. */
export interface StackProcess {
  readonly ports: Readonly<Record<PortVariable, number>>;
  readonly dataDir: string;
  /** Everything the stack printed so far. */
  output(): string;
  /** `{ authorization: 'Bearer …' }` with the management token of a role, as `npm start` generated it. */
  headers(role: 'admin' | 'read'): Promise<{ authorization: string }>;
  /** Sends a signal and resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Kills it if still running and removes its data folder. */
  cleanup(): Promise<void>;
}

/** Starts the stack with free ports (so it never meets one a developer runs) and waits until ready. */
export async function startStack(extraEnv: Record<string, string> = {}): Promise<StackProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stack-e2e-'));
  const ports = {} as Record<PortVariable, number>;
  for (const name of PORT_VARIABLES) ports[name] = await findFreePort();
  const child = startChildProcess(process.execPath, ['--import', 'tsx', 'tools/stack/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      STACK_DATA_DIR: dataDir,
      ...extraEnv,
    },
  });
  const exit = child.exited.then((ended) => ended.code);
  const stop = (signal: NodeJS.Signals = 'SIGINT') => {
    child.signal(signal);
    return exit;
  };
  const stack: StackProcess = {
    ports,
    dataDir,
    output: child.output,
    headers: async (role) => ({
      authorization: `Bearer ${await readFile(join(dataDir, 'secrets', `${role}-token`), 'utf8')}`,
    }),
    stop,
    cleanup: async () => {
      await stop('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  await waitFor(() => child.output().includes('all members are ready') || !child.isRunning(), {
    timeoutMs: 120_000,
    description: 'stack ready',
  });
  if (!child.isRunning()) throw new Error(`the stack exited during start-up:\n${child.output()}`);
  return stack;
}

/** True when nothing listens on 127.0.0.1:port. */
export function refusesConnections(port: number): Promise<boolean> {
  return new Promise<boolean>((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.on('error', () => done(true));
  });
}
