import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTsProcess } from '@sandbox/testing';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'main.ts');

/** The simulator as its own process (`node --import tsx main.ts <flags>`). */
export interface SimProcess {
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** The `node-sim listening` log line, once printed. */
  ready(): Promise<{ publicUrl: string; metricsUrl: string }>;
  /** SIGTERM for Node's shutdown; SIGKILL (to the whole group) for a crash. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnSim(args: readonly string[]): SimProcess {
  const child = startTsProcess(MAIN, args);
  const exited = child.exited.then((exit) => exit.code);
  const ready = async (): Promise<{ publicUrl: string; metricsUrl: string }> => {
    const line = await child.waitForLine((text) => text.includes('"node-sim listening"'), 15_000);
    return JSON.parse(line) as { publicUrl: string; metricsUrl: string };
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (signal === 'SIGKILL') await child.kill();
    else child.signal(signal);
    return exited;
  };
  return { stdout: child.stdout, stderr: child.stderr, exited, ready, stop };
}
