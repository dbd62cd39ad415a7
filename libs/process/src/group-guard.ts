import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

// A parent that is SIGKILLed (or OOM-killed) runs no exit handler, so no clean-up of its own ever
// reaches what it started. A guard is one `sh` reading a pipe from this process: when this process
// dies in any way the pipe closes, `read` sees end-of-file, and the guard runs its end action (kill
// a process group, remove a container, delete a network namespace, ...). The guard runs in a session
// of its own, so neither a terminal's Ctrl-C nor a SIGKILL of this process's whole group (what a test
// runner does to a stuck worker) takes it down before it acts; it also ignores the hang-up and
// termination signals for the same reason.
const WAIT_FOR_OWNER = ["trap '' INT TERM HUP QUIT", 'while read -r _; do :; done'];

/** A running guard; {@link Guard.release} it once what it guards is gone or cleaned up. */
export interface Guard {
  /** Stops the guard without it running its end action (it dies before its pipe closes). */
  release(): void;
}

/**
 * The end action of a guard: commands (each an argv, run by `sh` without any word splitting or
 * expansion of its words) run in order once the owner has died. A shell builtin may be named (dash's
 * `kill` reaches process groups).
 */
export interface GuardAction {
  /** The guard's `$0`, shown by `ps` and `pgrep -f`: say what it guards. */
  label: string;
  steps: readonly (readonly string[])[];
  /** Run a step only if the previous one succeeded. @defaultValue false (every step runs) */
  stopOnFailure?: boolean;
  /** Where the steps run. @defaultValue this process's working directory */
  cwd?: string;
  /** An open file descriptor the steps' output is appended to. @defaultValue their output is dropped */
  outputFd?: number;
}

/** `"$1" "$2"; "$3"`: each step's words as positional parameters, so no value is ever parsed by sh. */
function stepsScript(steps: GuardAction['steps'], separator: string): string {
  let next = 1;
  const lines = steps.map((step) => {
    if (step.length === 0) throw new RangeError('a guard step needs a command');
    return step.map(() => `"\${${next++}}"`).join(' ');
  });
  return lines.join(separator);
}

/**
 * Starts a guard that runs `action` when this process dies without releasing it. The guard and its
 * pipe are unref'd: they never keep this process alive. A guard that cannot start is reported by
 * nothing: what it would have guarded then simply runs unguarded.
 */
export function startGuard(action: GuardAction): Guard {
  const script = [...WAIT_FOR_OWNER, stepsScript(action.steps, action.stopOnFailure ? ' && ' : '; ')].join(
    '; ',
  );
  const output = action.outputFd ?? 'ignore';
  const guard: ChildProcess = spawn('sh', ['-c', script, action.label, ...action.steps.flat()], {
    cwd: action.cwd,
    detached: true,
    stdio: ['pipe', output, output],
  });
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

/** Steps that SIGKILL the process group `pgid` (dash's kill takes no `--`; `-KILL -pgid` names a group). */
export function killGroupSteps(pgid: number): string[][] {
  // `kill -KILL -0` would hit the guard's own group: never name a missing or invalid id.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`invalid process group ${pgid}`);
  return [['kill', '-KILL', `-${pgid}`]];
}

/**
 * Guards the process group `pgid` (a child started in a group of its own): it is SIGKILLed when this
 * process dies. Kernel pids stay reserved while they name a live process group, so the group id
 * cannot have been reused while any member still runs.
 */
export function guardProcessGroup(pgid: number): Guard {
  return startGuard({ label: 'process-group-guard', steps: killGroupSteps(pgid) });
}

/**
 * Guards a container (podman's name or id): it is removed, running or not, when this process dies.
 * A container is no child of this process, so only such a command ends it.
 */
export function guardContainer(container: string, podman = 'podman'): Guard {
  if (container === '' || container.startsWith('-')) throw new RangeError(`invalid container "${container}"`);
  return startGuard({
    label: 'container-guard',
    steps: [[podman, 'rm', '--force', '--time', '0', '--ignore', container]],
  });
}

/** Guards a named network namespace (`ip netns add`): it is deleted when this process dies. */
export function guardNetworkNamespace(name: string): Guard {
  if (name === '' || name.startsWith('-')) throw new RangeError(`invalid network namespace "${name}"`);
  return startGuard({ label: 'netns-guard', steps: [['ip', 'netns', 'delete', name]] });
}
