import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { startChildProcess } from './child-process';
import { guardProcessGroup } from './group-guard';
import { isAlive, waitUntil } from './__fixtures__/process-probes';

const PARENT = fileURLToPath(new URL('./__fixtures__/guarded-parent.ts', import.meta.url));

/** Pids of the guards watching `pgid` (their command line ends with it). */
const guardsOf = (pgid: number): string[] => {
  try {
    return execFileSync('pgrep', ['-f', `process-group-guard ${pgid}$`])
      .toString()
      .trim()
      .split('\n');
  } catch {
    return [];
  }
};

describe('the process-group guard', () => {
  it('kills a child and its descendants when their parent is SIGKILLed', async () => {
    const parent = startChildProcess(process.execPath, ['--import', 'tsx', PARENT], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    const line = await parent.waitForLine((text) => /^\d+ \d+$/u.test(text), 30_000);
    const [child, grandchild] = line.split(' ').map(Number) as [number, number];
    expect([isAlive(child), isAlive(grandchild)]).toEqual([true, true]);
    expect(guardsOf(child)).toHaveLength(1);

    // The parent's own group holds only the parent and its guards: the child has a group of its own.
    process.kill(parent.pid as number, 'SIGKILL');
    await waitUntil(() => !isAlive(child) && !isAlive(grandchild));
    await waitUntil(() => guardsOf(child).length === 0);
    await parent.exited;
  });

  it('is released when its child exits, and then kills nothing', async () => {
    const child = startChildProcess('sleep', ['0.2']);
    const pid = child.pid as number;
    expect(guardsOf(pid)).toHaveLength(1);
    await child.exited;
    await waitUntil(() => guardsOf(pid).length === 0);
  });

  it('refuses to guard a group id that would name this process group or every process', () => {
    for (const pgid of [0, 1, -5, Number.NaN]) expect(() => guardProcessGroup(pgid)).toThrow(RangeError);
  });
});
