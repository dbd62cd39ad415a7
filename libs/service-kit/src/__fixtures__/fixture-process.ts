// Starts the fixture service (fixture-service/main.ts) as a real child process for integration specs.
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./fixture-service/main.ts', import.meta.url));
const LISTEN_SPY = fileURLToPath(new URL('./listen-spy.ts', import.meta.url));

export interface FixtureProcess {
  readonly handle: ChildProcessHandle;
  /** Sends `signal` to the fixture (not its group), as an orchestrator would. */
  signal(signal: NodeJS.Signals): void;
  stdout(): string;
  stderr(): string;
  /** Parsed stdout log lines. */
  records(): Record<string, unknown>[];
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/** Spawns the fixture with exactly `env` (nothing inherited), with the listen spy preloaded. */
export function startFixture(env: Record<string, string>): FixtureProcess {
  const child = startChildProcess(process.execPath, ['--import', 'tsx', '--import', LISTEN_SPY, MAIN], {
    env,
  });
  return {
    handle: child,
    signal: child.signal,
    stdout: child.stdout,
    stderr: child.stderr,
    records: () =>
      child
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited: child.exited.then((exit) => exit.code ?? exit.signal ?? 'unknown'),
  };
}

/** Kills the fixture if it is still running and waits for it (test cleanup). */
export async function stopFixture(fixture: FixtureProcess | undefined): Promise<void> {
  if (!fixture) return;
  await fixture.handle.kill();
  await fixture.exited;
}
