// Starts the fixture service (fixture-service/main.ts) as a real child process for integration specs.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./fixture-service/main.ts', import.meta.url));
const LISTEN_SPY = fileURLToPath(new URL('./listen-spy.ts', import.meta.url));

export interface FixtureProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Parsed stdout log lines. */
  records(): Record<string, unknown>[];
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/** Spawns the fixture with exactly `env` (nothing inherited), with the listen spy preloaded. */
export function startFixture(env: Record<string, string>): FixtureProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', LISTEN_SPY, MAIN], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => {
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    records: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
  };
}

/** Kills the fixture if it is still running and waits for it (test cleanup). */
export async function stopFixture(fixture: FixtureProcess | undefined): Promise<void> {
  if (!fixture) return;
  if (fixture.child.exitCode === null && fixture.child.signalCode === null) fixture.child.kill('SIGKILL');
  await fixture.exited;
}
