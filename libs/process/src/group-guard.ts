import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

// A parent that is SIGKILLed (or OOM-killed) runs no exit handler, so execa's cleanup never reaches
// its children. The guard is one `sh` per child reading a pipe from this process: when this process
// dies in any way the pipe closes, `read` sees end-of-file, and the guard SIGKILLs the child's whole
// process group. It ignores the terminal's signals so a Ctrl-C meant for this process (which stops
// its children gracefully) does not take the guard down first. Kernel pids stay reserved while they
// name a live process group, so the group id cannot have been reused while any member still runs.
// (dash's kill takes no `--`; `-KILL "-pgid"` is the form it reads as a group.)
const GUARD_SCRIPT = [
  "trap '' INT TERM HUP QUIT",
  'while read -r _; do :; done',
  'kill -KILL "-$1" 2>/dev/null',
].join('; ');

/** The watchdog of one child's process group; {@link GroupGuard.release} once the child has exited. */
export interface GroupGuard {
  /** Stops the guard without it killing anything (it dies before its pipe closes). */
  release(): void;
}

/**
 * Starts the guard of the process group `pgid` (a child started in a group of its own). The guard and
 * its pipe are unref'd: they never keep this process alive.
 */
export function guardProcessGroup(pgid: number): GroupGuard {
  // `kill -- -0` would hit this process's own group: never guard a missing or invalid id.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`invalid process group ${pgid}`);
  const guard: ChildProcess = spawn('sh', ['-c', GUARD_SCRIPT, 'process-group-guard', String(pgid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Without a listener a failed spawn would throw; the child then simply runs unguarded.
  guard.on('error', () => undefined);
  guard.unref();
  const pipe = guard.stdin as (Writable & { unref?: () => void }) | null;
  pipe?.on('error', () => undefined);
  pipe?.unref?.();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      guard.kill('SIGKILL');
      pipe?.destroy();
    },
  };
}
