import { execa } from 'execa';
import type { ChildExit } from './exit';
import { guardProcessGroup, type Guard } from './group-guard';
import { createOutputLog, readLines, type OutputStream } from './output-log';

export { describeExit, type ChildExit } from './exit';
export type { OutputStream } from './output-log';

/** Options of {@link startChildProcess}. */
export interface ChildProcessOptions {
  cwd?: string;
  /** The child's whole environment: nothing of this process's environment is inherited. @defaultValue `{}` */
  env?: Record<string, string>;
  /** Called with each line the child prints, as it prints it. */
  onLine?: (line: string, stream: OutputStream) => void;
  /** How many characters of output the handle keeps (the newest; 0 keeps none). @defaultValue 1_000_000 */
  keepChars?: number;
}

/** A running child process, in its own process group. */
export interface ChildProcessHandle {
  readonly pid: number | undefined;
  /** Resolves once the child has exited and its output is read to the end. */
  readonly exited: Promise<ChildExit>;
  isRunning(): boolean;
  /** stdout and stderr lines, interleaved as they arrived. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` to the child alone (not its group), e.g. SIGTERM for a graceful stop. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM to the child, then SIGKILL to its whole group if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<ChildExit>;
  /** SIGKILL to the whole process group at once, as a crash (or the OOM killer) would. */
  kill(): Promise<ChildExit>;
  /**
   * Resolves the first stdout line (printed so far or later) that `match` accepts; rejects, with the
   * output's tail, if the child exits first or after `timeoutMs`.
   */
  waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<string>;
}

const DEFAULT_KEEP_CHARS = 1_000_000;
const DEFAULT_GRACE_MS = 15_000;

/**
 * Starts `command args` in its own process group (so a stop reaches every process it started, and a
 * terminal's Ctrl-C reaches only the parent), with exactly `options.env`. While the child runs, the
 * group is killed when this process exits, whatever the way (a watchdog covers SIGKILL and the OOM
 * killer). Failure to start is reported through `exited`, never thrown.
 */
export function startChildProcess(
  command: string,
  args: readonly string[],
  options: ChildProcessOptions = {},
): ChildProcessHandle {
  const subprocess = execa(command, args, {
    cwd: options.cwd,
    env: options.env ?? {},
    extendEnv: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    killDescendants: true,
    forceKillAfterDelay: false,
  });
  const kept = createOutputLog(options.keepChars ?? DEFAULT_KEEP_CHARS);
  const onLine = (line: string, stream: OutputStream) => {
    kept.add(line, stream);
    options.onLine?.(line, stream);
  };
  const reading = [
    readLines(subprocess.stdout, 'stdout', onLine),
    readLines(subprocess.stderr, 'stderr', onLine),
  ];
  let running = subprocess.pid !== undefined;
  const guard: Guard | undefined =
    subprocess.pid === undefined ? undefined : guardProcessGroup(subprocess.pid);
  const exited: Promise<ChildExit> = subprocess.then(async (result) => {
    running = false;
    guard?.release();
    await Promise.all(reading);
    const exit: ChildExit = {
      code: result.exitCode ?? null,
      signal: (result.signal as NodeJS.Signals) ?? null,
    };
    return result.exitCode === undefined && result.signal === undefined
      ? { ...exit, error: result.originalMessage || result.shortMessage }
      : exit;
  });

  const signal = (name: NodeJS.Signals) => {
    if (!running || subprocess.pid === undefined) return;
    try {
      process.kill(subprocess.pid, name);
    } catch {
      // It exited in the meantime.
    }
  };
  const kill = () => {
    if (running) subprocess.kill('SIGKILL');
    return exited;
  };
  async function stop(graceMs = DEFAULT_GRACE_MS): Promise<ChildExit> {
    if (!running) return exited;
    signal('SIGTERM');
    const timer = setTimeout(() => void kill(), graceMs);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  }
  return {
    pid: subprocess.pid,
    exited,
    isRunning: () => running,
    output: kept.all,
    stdout: () => kept.of('stdout'),
    stderr: () => kept.of('stderr'),
    signal,
    stop,
    kill,
    waitForLine: (match, timeoutMs) => kept.waitForLine(match, timeoutMs, exited),
  };
}
