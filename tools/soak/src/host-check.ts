import { runCommand } from '@sandbox/sandbox-local';
import type { StackInstances } from './stack-api';
import { hostLeftovers } from './host-leftovers';

const output = async (command: string, args: string[]): Promise<string> =>
  (await runCommand(command, args, { allowFailure: true, timeoutMs: 30_000 })).stdout;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What the run left on the host: namespaces, chains and containers of `prefix`, and live processes. */
export async function listLeftovers(prefix: string, pids: Iterable<number>): Promise<string[]> {
  const [netns, filter, nat, containers] = await Promise.all([
    output('ip', ['netns', 'list']),
    output('iptables-save', ['-t', 'filter']),
    output('iptables-save', ['-t', 'nat']),
    output('podman', ['ps', '-a', '--format', '{{.Names}}']),
  ]);
  const livePids = [...new Set(pids)].filter(alive);
  return hostLeftovers({ netns, iptables: `${filter}\n${nat}`, containers, livePids }, prefix);
}

/**
 * Removes what a stopped run left (instances through the local driver, processes by SIGKILL to their
 * groups) and lists what is still there.
 */
export async function cleanUpLeftovers(
  instances: StackInstances,
  pids: Iterable<number>,
  say: (message: string) => void,
): Promise<string[]> {
  for (const pid of new Set(pids)) {
    if (!alive(pid)) continue;
    say(`killing leftover process group ${pid}`);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
  }
  for (const id of await instances.list().catch(() => [])) {
    say(`removing leftover instance ${id}`);
    await instances.destroy(id).catch((error: Error) => say(`could not remove ${id}: ${error.message}`));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return listLeftovers(instances.prefix, pids);
}
