import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startChildProcess } from '@sandbox/process';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';

/** Which CPU the server under test and the load generator each get; none on a single-CPU host. */
export interface CpuPlan {
  readonly server?: string;
  readonly load?: string;
}

/** The server on CPU 0 and the load generator on CPU 1 when the host has two CPUs or more. */
export function planCpus(cpus = availableParallelism()): CpuPlan {
  return cpus >= 2 ? { server: '0', load: '1' } : {};
}

/** `command args` prefixed with `taskset -c cpu` when a CPU is given. */
export function pinned(
  cpu: string | undefined,
  command: string,
  args: readonly string[],
): [string, string[]] {
  return cpu === undefined ? [command, [...args]] : ['taskset', ['-c', cpu, command, ...args]];
}

/**
 * A command runner that starts podman on `cpu`: conmon, runsc and the sandbox it creates (sentry,
 * gofer, systrap stubs) inherit that affinity, and the sentry sizes its Go runtime from it.
 */
export function pinnedPodman(cpu: string | undefined, run: CommandRunner = runCommand): CommandRunner {
  return (command, args, options) =>
    command === 'podman' ? run(...pinned(cpu, command, args), options) : run(command, args, options);
}

const LOAD_GENERATOR = fileURLToPath(new URL('./load-generator.main.ts', import.meta.url));

/** Options of {@link pinnedRequestsPerSecond}. */
export interface PinnedLoad {
  readonly cpu: string | undefined;
  /** The load generator's environment (it needs what `node --import tsx` needs: PATH, HOME). */
  readonly env: Record<string, string>;
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** What {@link pinnedRequestsPerSecond} measured. */
export interface PinnedResult {
  readonly rps: number;
  /** Requests per CPU-second the server used in the same window (load on the machine affects it less). */
  readonly perCpuSecond: number;
}

/**
 * Requests/s of `GET path` from the load generator run as its own process on `load.cpu`, and per
 * CPU-second of the server (`serverCpuSeconds` read when the counted window starts and ends).
 */
export async function pinnedRequestsPerSecond(
  target: { host: string; port: number; path: string },
  load: PinnedLoad,
  serverCpuSeconds: () => number,
): Promise<PinnedResult> {
  let rps = Number.NaN;
  let window: { cpu: number; at: number } | undefined;
  let used = Number.NaN;
  const settings = [target.host, String(target.port), target.path, String(load.connections)];
  const [command, args] = pinned(load.cpu, process.execPath, [
    '--import',
    'tsx',
    LOAD_GENERATOR,
    ...settings,
    String(load.warmupMs),
    String(load.durationMs),
  ]);
  const child = startChildProcess(command, args, {
    env: load.env,
    onLine: (line, stream) => {
      if (stream !== 'stdout') return;
      if (line === 'measuring') window = { cpu: serverCpuSeconds(), at: performance.now() };
      if (line.startsWith('rps ') && window) {
        rps = Number(line.slice(4));
        used = (serverCpuSeconds() - window.cpu) / ((performance.now() - window.at) / 1_000);
      }
    },
  });
  const exit = await child.exited;
  if (exit.code !== 0 || !Number.isFinite(rps)) throw new Error(`load generator failed (exit ${exit.code})`);
  return { rps, perCpuSecond: rps / used };
}
