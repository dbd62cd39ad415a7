import { createWriteStream, type WriteStream } from 'node:fs';
import type { StackConsole } from './stack-api';

/** The soak's own lines (stdout, with time and offset) and the stack's members' lines (a file). */
export interface SoakLog {
  /** One line of the soak's: faults, recoveries, violations, progress. */
  say(message: string): void;
  /** The console handed to the stack: members' lines go to the file, the stack's own lines to both. */
  readonly stackConsole: StackConsole;
  close(): Promise<void>;
}

export function createSoakLog(options: {
  startMs: number;
  stackLogPath: string;
  write: (text: string) => void;
}): SoakLog {
  const file: WriteStream = createWriteStream(options.stackLogPath, { flags: 'a', mode: 0o600 });
  const stamp = () => {
    const now = Date.now();
    return `[${new Date(now).toISOString()} +${((now - options.startMs) / 1000).toFixed(1)}s]`;
  };
  const say = (message: string) => {
    const line = `${stamp()} ${message}\n`;
    options.write(line);
    file.write(line);
  };
  return {
    say,
    stackConsole: {
      member: (name, line) => void file.write(`${name.padEnd(18)} | ${line}\n`),
      say: (message) => {
        file.write(`${stamp()} stack | ${message}\n`);
        if (/exited|restart|ready again|not ready|failed|stopp/.test(message)) say(`stack: ${message}`);
      },
    },
    close: () => new Promise((resolve) => file.end(resolve)),
  };
}
