import { readdir, readFile } from 'node:fs/promises';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';

/** Mount points at or under `dir`, deepest first (the order to unmount them in). */
export function mountsUnder(mountInfo: string, dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const points = mountInfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined && (point === dir || point.startsWith(prefix)))
    // mountinfo escapes spaces and other bytes as octal; our directories have none.
    .map((point) => point.replace(/\\040/g, ' '));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Pids whose command line mentions `needle` (e.g. the node's socket path: its shims do). */
export async function pidsMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').some((arg) => arg.includes(needle))) pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs each pid's whole process group (a shim leads its own), then the pid itself. */
export function killProcessGroups(pids: readonly number[]): void {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Already gone, or not a group leader.
      }
    }
  }
}

/** Lazily unmounts everything under `dir`, deepest first; returns what it unmounted. */
export async function unmountUnder(dir: string, run: CommandRunner = runCommand): Promise<string[]> {
  const points = mountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), dir);
  for (const point of points) {
    await run('umount', ['-l', point], { timeoutMs: 30_000, allowFailure: true });
  }
  return points;
}

/** Deletes the node's bridge if it exists (the bridge plugin leaves it when the last pod goes). */
export async function deleteLink(name: string, run: CommandRunner = runCommand): Promise<void> {
  const shown = await run('ip', ['link', 'show', name], { timeoutMs: 10_000, allowFailure: true });
  if (shown.exitCode === 0) await run('ip', ['link', 'delete', name], { timeoutMs: 10_000 });
}
