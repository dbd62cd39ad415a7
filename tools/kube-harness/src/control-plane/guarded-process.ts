import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { killGroupSteps, startGuard } from '@sandbox/process';

/** A control-plane process whose watchdog kills it if this Node process dies. */
export interface GuardedProcess {
  readonly child: ChildProcess;
  /** The file its stdout and stderr go to. */
  readonly logFile: string;
  hasExited(): boolean;
  /** The last `bytes` of its log, for failure messages. */
  logTail(bytes?: number): Promise<string>;
  /** SIGTERM, SIGKILL after `graceMs`, then disarms the watchdog. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (a crash), then disarms the watchdog. */
  kill(): Promise<void>;
  /** Sends a signal without waiting (SIGSTOP / SIGCONT freeze and thaw it). */
  signal(signal: NodeJS.Signals): void;
}

/** Options of {@link spawnGuarded}. */
export interface SpawnGuardedOptions {
  executable: string;
  args: string[];
  cwd: string;
  logFile: string;
  /** Removed by the watchdog after the kill, when this process died without cleaning up. */
  orphanDir?: string;
  /** @defaultValue this process's environment */
  env?: NodeJS.ProcessEnv;
}

const EXIT_TIMEOUT_MS = 10_000;

/** True once the process has exited (or never started). */
function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts the guard of `pid`'s process group (see `@sandbox/process`): when this process dies without
 * disarming it, the group is SIGKILLed, then the temporary directory removed. Returns the disarm.
 */
function startWatchdog(pid: number, orphanDir: string): () => void {
  const removeDir =
    orphanDir === ''
      ? []
      : [
          ['sleep', '0.5'],
          ['rm', '-rf', '--', orphanDir],
        ];
  const guard = startGuard({ label: 'kube-guard', steps: [...killGroupSteps(pid), ...removeDir] });
  return () => guard.release();
}

/** SIGTERM (or the given signal), SIGKILL after `graceMs`; throws if even SIGKILL does not end it. */
async function terminate(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (exited(child)) return;
  child.kill(signal);
  if (await waitForExit(child, graceMs)) return;
  child.kill('SIGKILL');
  if (!(await waitForExit(child, EXIT_TIMEOUT_MS))) {
    throw new Error(`pid ${child.pid} did not exit after SIGKILL`);
  }
}

function spawnLogged(options: SpawnGuardedOptions): ChildProcess {
  const fd = openSync(options.logFile, 'a');
  try {
    return spawn(options.executable, options.args, {
      cwd: options.cwd,
      env: options.env,
      // A group of its own, which the guard kills whole (a pid alone could have been reused).
      detached: true,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * Spawns a program with its output appended to `logFile` (a file descriptor, so a chatty server
 * costs this process nothing), plus a watchdog. Handles are unref'd: a forgotten fixture does not
 * keep Node alive, and the watchdog cleans up after it.
 */
export function spawnGuarded(options: SpawnGuardedOptions): GuardedProcess {
  const child = spawnLogged(options);
  let spawnError = '';
  child.on('error', (error) => {
    spawnError = `spawn failed: ${error.message}`;
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.executable}`);
  child.unref();
  const disarm = startWatchdog(child.pid, options.orphanDir ?? '');
  const end = async (signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    await terminate(child, signal, graceMs);
    disarm();
  };
  return {
    child,
    logFile: options.logFile,
    hasExited: () => exited(child),
    logTail: async (bytes = 4_000) => {
      const log = await readFile(options.logFile, 'utf8').catch(() => '');
      return `${log.slice(-bytes)}${spawnError ? `\n${spawnError}` : ''}`.trim();
    },
    stop: (graceMs = EXIT_TIMEOUT_MS) => end('SIGTERM', graceMs),
    kill: () => end('SIGKILL', EXIT_TIMEOUT_MS),
    signal: (signal) => {
      if (!exited(child)) child.kill(signal);
    },
  };
}
