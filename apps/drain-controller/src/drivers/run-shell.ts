import { spawn } from 'node:child_process';

/** How a shell command ended. */
export interface ShellResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** The last characters it wrote to stderr (for the failure reason). */
  readonly stderrTail: string;
}

const TAIL = 400;

/**
 * Runs `/bin/sh -c command` in its own process group with exactly `env`, and kills the whole group
 * after `timeoutMs`: an operator's restart command may start children that must not outlive it.
 */
export function runShell(
  command: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ShellResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let tail = '';
    let timedOut = false;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-TAIL);
    });
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ exitCode: null, signal: null, timedOut, stderrTail: error.message });
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ exitCode, signal, timedOut, stderrTail: tail.trim() });
    });
  });
}
