// Child processes of the drain specs: the real adapter (its main.ts) and the Node simulator under the
// stack's member supervisor, restartable on request, so the command driver really replaces it with a
// new process as it does under `npm start`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const ADAPTER_MAIN = `${ROOT}apps/adapter/src/main.ts`;
export const DRAIN_MAIN = `${ROOT}apps/drain-controller/src/main.ts`;
const SIM_MAIN = `${ROOT}tools/node-sim/src/main.ts`;
const RUN_RESTARTABLE = `${ROOT}tools/stack/src/restart-on-request/run-restartable.ts`;
const REQUEST_RESTART = `${ROOT}tools/stack/src/restart-on-request/request-restart.ts`;
const STOP_GRACE_MS = 10_000;

/** A Node child process whose output is kept, in its own process group (killed whole). */
export interface Child {
  readonly handle: ChildProcessHandle;
  output(): string;
  readonly exited: Promise<void>;
  /** SIGKILL to the whole group, or SIGTERM to the child and SIGKILL to the group after a grace period. */
  kill(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export function spawnChild(args: string[], env: Record<string, string>): Child {
  const handle = startChildProcess(process.execPath, args, { env });
  const exited = handle.exited.then(() => undefined);
  return {
    handle,
    output: handle.output,
    exited,
    async kill(signal = 'SIGTERM') {
      await (signal === 'SIGKILL' ? handle.kill() : handle.stop(STOP_GRACE_MS));
    },
  };
}

/** The simulator under the stack's supervisor, with its restart files in `stateDir`. */
export interface SupervisedSim {
  readonly process: Child;
  readonly publicUrl: string;
  readonly metricsUrl: string;
  /** The current simulator process id. */
  pid(): number | undefined;
  /** The command the command driver runs to replace it (idempotent per DRAIN_ID). */
  readonly replaceCommand: string;
}

export function startSupervisedSim(options: {
  stateDir: string;
  port: number;
  metricsPort: number;
  secretFile: string;
  runnerGrants: string[];
  baseEnv: Record<string, string>;
  /** Go durations. @defaultValue 500ms / 2s, so specs see re-registrations quickly */
  heartbeat?: { interval: string; ttl: string };
}): SupervisedSim {
  const simArgs = [
    ...['--import', 'tsx', SIM_MAIN],
    ...['--listen', `127.0.0.1:${options.port}`, '--metrics-listen', `127.0.0.1:${options.metricsPort}`],
    ...['--bootstrap-secret-file', options.secretFile],
    ...['--heartbeat-interval', options.heartbeat?.interval ?? '500ms'],
    ...['--heartbeat-ttl', options.heartbeat?.ttl ?? '2s', '--log-level', 'warn'],
    ...options.runnerGrants.flatMap((grant) => ['--runner-grant', grant]),
  ];
  const supervised = spawnChild(
    ['--import', 'tsx', RUN_RESTARTABLE, options.stateDir, 'node-sim', '--', process.execPath, ...simArgs],
    options.baseEnv,
  );
  const childPid = (): number | undefined => {
    try {
      return Number(readFileSync(join(options.stateDir, 'child.pid'), 'utf8')) || undefined;
    } catch {
      return undefined;
    }
  };
  return {
    process: supervised,
    publicUrl: `http://127.0.0.1:${options.port}`,
    metricsUrl: `http://127.0.0.1:${options.metricsPort}`,
    pid: childPid,
    replaceCommand: `'${process.execPath}' --import tsx '${REQUEST_RESTART}' '${options.stateDir}' "$DRAIN_ID" 60000`,
  };
}
