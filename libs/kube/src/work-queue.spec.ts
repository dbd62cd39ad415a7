import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { createWorkQueue } from './work-queue';

/** Timers the test fires by hand. */
function manualTimers() {
  const timers: { ms: number; fn: () => void; cancelled: boolean }[] = [];
  return {
    schedule: (fn: () => void, ms: number) => {
      const timer = { ms, fn, cancelled: false };
      timers.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
    pending: () => timers.filter((timer) => !timer.cancelled).map((timer) => timer.ms),
    fireAll() {
      for (const timer of timers.splice(0)) if (!timer.cancelled) timer.fn();
    },
  };
}

function setup(fail: (key: string, run: number) => boolean = () => false) {
  const timers = manualTimers();
  const runs: string[] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const queue = createWorkQueue({
    reconcile: async (key) => {
      runs.push(key);
      await gate;
      if (fail(key, runs.filter((run) => run === key).length)) throw new Error(`${key} failed`);
    },
    logger: pino({ level: 'silent' }),
    name: 'test',
    initialRetryMs: 100,
    maxRetryMs: 400,
    schedule: timers.schedule,
    random: () => 1,
  });
  const hold = () => (gate = new Promise<void>((resolve) => (release = resolve)));
  const open = () => {
    gate = undefined;
    release?.();
  };
  return { queue, timers, runs, hold, open };
}

describe('createWorkQueue', () => {
  it('reconciles each queued key once however many times it was added', async () => {
    const { queue, runs, hold, open } = setup();
    hold();
    queue.add('apps/busy');
    queue.add('apps/a');
    queue.add('apps/b');
    queue.add('apps/b');
    queue.add('apps/a');
    open();
    await queue.idle();
    expect(runs).toEqual(['apps/busy', 'apps/a', 'apps/b']);
  });

  it('runs a key added during its own reconcile once more afterwards, never twice at once', async () => {
    const { queue, runs, hold, open } = setup();
    hold();
    queue.add('apps/a');
    await Promise.resolve();
    queue.add('apps/a');
    queue.add('apps/a');
    expect(runs).toEqual(['apps/a']);
    open();
    await queue.idle();
    expect(runs).toEqual(['apps/a', 'apps/a']);
  });

  it('retries a failing key with growing, capped backoff and forgets the count on success', async () => {
    const { queue, timers, runs } = setup((_key, run) => run <= 4);
    queue.add('apps/a');
    await queue.idle();
    const delays: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      delays.push(...timers.pending());
      timers.fireAll();
      await queue.idle();
    }
    expect(delays).toEqual([100, 200, 400, 400]);
    expect(runs).toHaveLength(5);
    expect(queue.failures('apps/a')).toBe(0);
    expect(timers.pending()).toEqual([]);
  });

  it('drops the retry of a forgotten key, and takes nothing after close', async () => {
    const { queue, timers, runs } = setup(() => true);
    queue.add('apps/a');
    await queue.idle();
    expect(timers.pending()).toEqual([100]);
    queue.forget('apps/a');
    timers.fireAll();
    await queue.idle();
    expect(runs).toEqual(['apps/a']);
    queue.add('apps/b');
    await queue.idle();
    await queue.close();
    expect(timers.pending()).toEqual([]);
    queue.add('apps/c');
    await queue.idle();
    expect(runs).toEqual(['apps/a', 'apps/b']);
  });
});
