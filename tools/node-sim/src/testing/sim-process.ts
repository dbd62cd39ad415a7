import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@sandbox/testing';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'main.ts');

/** The simulator as its own process (`node --import tsx main.ts <flags>`). */
export interface SimProcess {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** The `node-sim listening` log line, once printed. */
  ready(): Promise<{ publicUrl: string; metricsUrl: string }>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnSim(args: readonly string[]): SimProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = (): Promise<{ publicUrl: string; metricsUrl: string }> =>
    waitFor(
      () =>
        out
          .split('\n')
          .filter((line) => line.includes('"node-sim listening"'))
          .map((line) => JSON.parse(line) as { publicUrl: string; metricsUrl: string })[0],
      { description: 'the simulator to print its listening line', timeoutMs: 15_000 },
    );
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return { child, stdout: () => out, stderr: () => err, exited, ready, stop };
}
