import { readFileSync } from 'node:fs';
import { runCli } from '../cli/program';
import type { CliIo } from '../cli/runtime';

/** A captured stream; `isTTY` can be set to test terminal behaviour. */
export class CapturedStream {
  text = '';
  isTTY: boolean;
  columns = 120;
  constructor(isTTY = false) {
    this.isTTY = isTTY;
  }
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
  on(): this {
    return this;
  }
  once(): this {
    return this;
  }
  removeListener(): this {
    return this;
  }
  cursorTo(): boolean {
    return true;
  }
  clearLine(): boolean {
    return true;
  }
  moveCursor(): boolean {
    return true;
  }
}

/** What one run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runWith}. */
export interface RunOptions {
  env?: Record<string, string>;
  stdin?: string;
  tty?: boolean;
  /** Pause between polls of --wait (real time, short by default so tests never sleep long). */
  sleep?: (ms: number) => Promise<void>;
}

/** Runs the CLI in this process with captured output and the given environment only. */
export async function runWith(argv: string[], options: RunOptions = {}): Promise<CliRun> {
  const stdout = new CapturedStream(options.tty ?? false);
  const stderr = new CapturedStream(options.tty ?? false);
  const io: CliIo = {
    stdout,
    stderr,
    stdin: (async function* () {
      if (options.stdin !== undefined) yield options.stdin;
    })(),
    env: options.env ?? {},
    now: Date.now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 100)))),
    readFile: (path) => readFileSync(path, 'utf8'),
  };
  const code = await runCli(argv, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
