import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { describeExit, type ChildExit } from './exit';

/** Which of a child's output streams a line came from. */
export type OutputStream = 'stdout' | 'stderr';

/** Calls `onLine` with each line of `stream`; resolves once the stream has ended. */
export function readLines(
  stream: Readable | null,
  name: OutputStream,
  onLine: (line: string, stream: OutputStream) => void,
): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise<void>((resolve) => {
    createInterface({ input: stream, crlfDelay: Infinity })
      .on('line', (line) => onLine(line, name))
      .on('close', resolve);
  });
}

/** A child's output: the newest `limit` characters of each stream and of both, and waits for a line. */
export function createOutputLog(limit: number) {
  const text = { all: '', stdout: '', stderr: '' };
  const watchers = new Set<(line: string) => void>();
  const append = (current: string, line: string) => {
    if (limit <= 0) return '';
    const next = `${current}${line}\n`;
    return next.length > limit ? next.slice(-limit) : next;
  };

  function waitForLine(
    match: (line: string) => boolean,
    timeoutMs: number,
    exited: Promise<ChildExit>,
  ): Promise<string> {
    // Every kept line ends with a newline: the last piece of the split is not a line.
    const seen = text.stdout.split('\n').slice(0, -1).find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const finish = (outcome: () => void) => {
        clearTimeout(timer);
        watchers.delete(watch);
        outcome();
      };
      const fail = (why: string) => finish(() => reject(new Error(`${why}:\n${text.all.slice(-3_000)}`)));
      const watch = (line: string) => match(line) && finish(() => resolve(line));
      const timer = setTimeout(() => fail(`no matching line within ${timeoutMs} ms`), timeoutMs);
      watchers.add(watch);
      void exited.then((exit) => fail(`exited (${describeExit(exit)}) before a matching line`));
    });
  }

  return {
    add(line: string, stream: OutputStream) {
      text.all = append(text.all, line);
      text[stream] = append(text[stream], line);
      if (stream === 'stdout') for (const watcher of watchers) watcher(line);
    },
    all: () => text.all,
    of: (stream: OutputStream) => text[stream],
    waitForLine,
  };
}
