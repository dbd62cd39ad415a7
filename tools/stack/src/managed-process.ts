import { startChildProcess, waitUntilReady, type ChildExit } from '@sandbox/process';

/** One member of the stack: a long-running child process with a readiness check. */
export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Resolves true once the process serves; polled until `readyTimeoutMs`. */
  isReady: () => Promise<boolean>;
  readyTimeoutMs?: number;
  /** What to print once it is ready, e.g. its URL. */
  banner?: string;
  /**
   * Where its restart files live, for a member that is replaced by a new process on request
   * (`restart-on-request/request-restart.ts`), as the drain-controller restarts Node.
   */
  restartOnRequest?: { dir: string };
}

/** Writes one line of a child's output; the stack prefixes it with the child's name. */
export type LineSink = (name: string, line: string) => void;

/** One run of a member, in its own process group (a terminal's Ctrl-C reaches only the stack). */
export interface ManagedProcess {
  readonly spec: ProcessSpec;
  readonly pid: number | undefined;
  readonly exited: Promise<ChildExit>;
  /** Resolves once `isReady` does; rejects if the process exits first or is not ready in time. */
  waitReady(): Promise<void>;
  /** SIGTERM, then SIGKILL to its whole group after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

const READY_POLL_MS = 200;

/** Starts one run of a member, passing its output lines to `sink`. */
export function startProcess(spec: ProcessSpec, sink: LineSink): ManagedProcess {
  const child = startChildProcess(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    onLine: (line) => sink(spec.name, line),
    keepChars: 0,
  });

  const waitReady = () =>
    waitUntilReady(child, spec.isReady, {
      description: `${spec.name} to be ready`,
      timeoutMs: spec.readyTimeoutMs ?? 30_000,
      intervalMs: READY_POLL_MS,
    });

  async function stop(graceMs: number): Promise<void> {
    if (!child.isRunning()) return;
    const timer = setTimeout(() => {
      if (child.isRunning()) sink(spec.name, `did not stop within ${graceMs} ms; killing it`);
    }, graceMs);
    await child.stop(graceMs);
    clearTimeout(timer);
  }

  return { spec, pid: child.pid, exited: child.exited, waitReady, stop };
}
