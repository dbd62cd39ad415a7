import { readFile, readlink } from 'node:fs/promises';
import type { CommandRunner } from './command-runner';

/** Reads `/proc`; injected so unit tests need no real processes. */
export interface ProcReader {
  cmdline(pid: number): Promise<string[] | undefined>;
  exe(pid: number): Promise<string | undefined>;
}

/** The real {@link ProcReader}; a process that is gone reads as undefined. */
export const procReader: ProcReader = {
  async cmdline(pid) {
    try {
      return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter((arg) => arg !== '');
    } catch {
      return undefined;
    }
  },
  async exe(pid) {
    try {
      return await readlink(`/proc/${pid}/exe`);
    } catch {
      return undefined;
    }
  },
};

/** The runsc root and container id of a `runsc-sandbox` process, from its command line. */
export function parseSandboxCommand(
  args: readonly string[],
): { root: string; containerId: string } | undefined {
  if (args[0] !== 'runsc-sandbox' || !args.includes('boot')) return undefined;
  const root = args.find((arg) => arg.startsWith('--root='))?.slice('--root='.length);
  const containerId = args.at(-1);
  return root && containerId && /^[0-9a-f]{64}$/.test(containerId) ? { root, containerId } : undefined;
}

/**
 * Ends every process still inside an instance's network namespace. A `podman run` killed between
 * `runsc create` and `runsc start` leaves a sandbox podman no longer knows about, so `podman rm` does
 * not stop it; it still lives in our namespace, where we find it. Sandboxes are deleted through runsc
 * (which also ends their gofer and removes runsc's state); anything left gets SIGKILL.
 */
export async function endNamespaceProcesses(
  run: CommandRunner,
  netns: string,
  proc: ProcReader = procReader,
): Promise<number> {
  const listed = await run('ip', ['netns', 'pids', netns], { allowFailure: true });
  if (listed.exitCode !== 0) return 0;
  const pids = listed.stdout
    .split('\n')
    .filter((line) => /^\d+$/.test(line.trim()))
    .map(Number);
  for (const pid of pids) {
    const sandbox = parseSandboxCommand((await proc.cmdline(pid)) ?? []);
    const exe = await proc.exe(pid);
    if (sandbox && exe) {
      await run(
        exe.replace(/ \(deleted\)$/, ''),
        [`--root=${sandbox.root}`, 'delete', '--force', sandbox.containerId],
        { allowFailure: true },
      );
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, usually because runsc delete ended it.
    }
  }
  return pids.length;
}
