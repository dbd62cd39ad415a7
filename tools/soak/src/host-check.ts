import { readFileSync } from 'node:fs';
import { runCommand } from '@sandbox/sandbox-local';
import type { StackInstances } from './stack-api';
import { hostLeftovers } from './host-leftovers';

const output = async (command: string, args: string[]): Promise<string> =>
  (await runCommand(command, args, { allowFailure: true, timeoutMs: 30_000 })).stdout;

/** A process's start time (clock ticks since boot, /proc/<pid>/stat), to tell it from a reused pid. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Processes of the run: each pid with its start time, taken while the run's processes were running. */
export type RunProcesses = ReadonlyMap<number, string | undefined>;

/** Every process of the run still alive: a recorded pid with the same start time, or a member of its group. */
async function liveProcesses(processes: RunProcesses): Promise<number[]> {
  const live = new Set<number>();
  for (const [pid, startTime] of processes) {
    if (startTime !== undefined && startTimeOf(pid) === startTime) live.add(pid);
    const group = await runCommand('pgrep', ['-g', String(pid)], { allowFailure: true });
    for (const line of group.stdout.split('\n')) if (/^\d+$/.test(line.trim())) live.add(Number(line.trim()));
  }
  return [...live];
}

/** What the run left on the host: namespaces, chains and containers of `prefix`, and live processes. */
export async function listLeftovers(prefix: string, processes: RunProcesses): Promise<string[]> {
  const [netns, filter, nat, containers] = await Promise.all([
    output('ip', ['netns', 'list']),
    output('iptables-save', ['-t', 'filter']),
    output('iptables-save', ['-t', 'nat']),
    output('podman', ['ps', '-a', '--format', '{{.Names}}']),
  ]);
  const livePids = await liveProcesses(processes);
  return hostLeftovers({ netns, iptables: `${filter}\n${nat}`, containers, livePids }, prefix);
}

/**
 * Removes what a stopped run left (instances through the local driver, processes by SIGKILL to their
 * groups) and lists what is still there.
 */
export async function cleanUpLeftovers(
  instances: StackInstances,
  processes: RunProcesses,
  say: (message: string) => void,
): Promise<string[]> {
  for (const pid of await liveProcesses(processes)) {
    say(`killing leftover process ${pid}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  }
  for (const id of await instances.list().catch(() => [])) {
    say(`removing leftover instance ${id}`);
    await instances.destroy(id).catch((error: Error) => say(`could not remove ${id}: ${error.message}`));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return listLeftovers(instances.prefix, processes);
}
