import type { CommandRunner } from './command-runner';
import type { LogLine } from './container-logs';
import { mergeTimestampedLogs } from './container-logs';
import { LABEL } from './podman-args';

/** A container of ours as `podman ps` reports it. */
export interface ContainerSummary {
  name: string;
  /** `running`, `exited`, `created`, ... as podman says. */
  state: string;
  labels: Record<string, string>;
}

interface PsJson {
  Names?: string[];
  State?: string;
  Labels?: Record<string, string> | null;
}

/** The podman operations the driver needs. */
export interface Podman {
  run(args: readonly string[]): Promise<void>;
  /** Stops (SIGTERM, then SIGKILL after the grace period) and removes; a missing container is fine. */
  remove(name: string, graceSeconds: number): Promise<void>;
  list(prefix: string): Promise<ContainerSummary[]>;
  /** The container's state, or undefined when it does not exist. */
  state(name: string): Promise<string | undefined>;
  logs(name: string, tail?: number): Promise<LogLine[]>;
}

/** The real {@link Podman} on top of a {@link CommandRunner}. */
export function createPodman(run: CommandRunner, podmanPath = 'podman'): Podman {
  return {
    async run(args) {
      await run(podmanPath, args, { timeoutMs: 120_000 });
    },
    async remove(name, graceSeconds) {
      await run(podmanPath, ['rm', '--force', '--ignore', `--time=${graceSeconds}`, name], {
        timeoutMs: (graceSeconds + 60) * 1000,
      });
    },
    async list(prefix) {
      const { stdout } = await run(podmanPath, [
        'ps',
        '--all',
        `--filter=label=${LABEL.prefix}=${prefix}`,
        '--format=json',
      ]);
      const parsed = stdout.trim() === '' ? [] : (JSON.parse(stdout) as PsJson[]);
      return parsed.map((entry) => ({
        name: entry.Names?.[0] ?? '',
        state: entry.State ?? 'unknown',
        labels: entry.Labels ?? {},
      }));
    },
    async state(name) {
      const result = await run(podmanPath, ['container', 'inspect', '--format={{.State.Status}}', name], {
        allowFailure: true,
      });
      return result.exitCode === 0 ? result.stdout.trim() : undefined;
    },
    async logs(name, tail) {
      const args = ['logs', '--timestamps', ...(tail === undefined ? [] : [`--tail=${tail}`]), name];
      const { stdout, stderr } = await run(podmanPath, args);
      return mergeTimestampedLogs(stdout, stderr);
    },
  };
}
