import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { ManualClock } from '@sandbox/testing';
import { createBeatScheduler, type BeatScheduler } from './beat-scheduler';

const logger = pino({ level: 'silent' });

/** Sets a task per [key, due time] that records its key and start time in `ran`. */
function setRecorders(
  scheduler: BeatScheduler,
  clock: ManualClock,
  dues: ReadonlyArray<readonly [string, number]>,
): Array<[string, number]> {
  const ran: Array<[string, number]> = [];
  for (const [key, due] of dues) scheduler.set(key, due, async () => void ran.push([key, clock.now()]));
  return ran;
}

describe('beat scheduler', () => {
  it('runs tasks at their due times in due order, from one timer', async () => {
    const clock = new ManualClock(0);
    const late: number[] = [];
    const scheduler = createBeatScheduler({
      ...clock,
      maxConcurrent: 4,
      logger,
      onStart: (ms) => late.push(ms),
    });
    const ran = setRecorders(scheduler, clock, [
      ['b', 200],
      ['a', 100],
      ['c', 300],
    ]);
    await clock.settle();
    expect(clock.pending).toBe(1);
    await clock.advanceAndSettle(300);
    expect(ran).toEqual([
      ['a', 100],
      ['b', 200],
      ['c', 300],
    ]);
    expect(late).toEqual([0, 0, 0]);
    expect(scheduler.size).toBe(0);
  });

  it('starts the tasks due within earlyMs of a wake-up in it, and arms for the next one', async () => {
    const clock = new ManualClock(0);
    const scheduler = createBeatScheduler({ ...clock, maxConcurrent: 4, logger, earlyMs: 50 });
    const ran = setRecorders(scheduler, clock, [
      ['a', 100],
      ['b', 150],
      ['c', 151],
    ]);
    await clock.advanceAndSettle(200);
    expect(ran).toEqual([
      ['a', 100],
      ['b', 100],
      ['c', 151],
    ]);
    expect(scheduler.earlyMs).toBe(50);
  });

  it('replaces a key due time, and cancels it', async () => {
    const clock = new ManualClock(0);
    const scheduler = createBeatScheduler({ ...clock, maxConcurrent: 4, logger });
    const ran: number[] = [];
    scheduler.set('a', 100, async () => void ran.push(clock.now()));
    scheduler.set('a', 50, async () => void ran.push(clock.now()));
    scheduler.set('b', 60, async () => void ran.push(-1));
    scheduler.cancel('b');
    await clock.advanceAndSettle(200);
    expect(ran).toEqual([50]);
  });

  it('limits concurrency and never runs one key twice at once', async () => {
    const clock = new ManualClock(0);
    const scheduler = createBeatScheduler({ ...clock, maxConcurrent: 2, logger });
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const task = () => async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running -= 1;
    };
    for (const key of ['a', 'b', 'c']) scheduler.set(key, 0, task());
    await clock.settle();
    expect(running).toBe(2);
    scheduler.set('a', 0, task());
    await clock.settle();
    expect(running).toBe(2);
    releases.shift()?.();
    await clock.settle();
    expect(running).toBe(2);
    while (releases.length > 0) {
      releases.shift()?.();
      await clock.settle();
    }
    expect(peak).toBe(2);
    expect(scheduler.size).toBe(0);
  });

  it('stops starting tasks and waits for the running ones', async () => {
    const clock = new ManualClock(0);
    const scheduler = createBeatScheduler({ ...clock, maxConcurrent: 2, logger });
    let finished = false;
    let release: () => void = () => undefined;
    scheduler.set('a', 0, () =>
      new Promise<void>((resolve) => (release = resolve)).then(() => void (finished = true)),
    );
    scheduler.set('b', 100, async () => {
      throw new Error('must not run');
    });
    await clock.settle();
    const stopped = scheduler.stop();
    release();
    await stopped;
    expect(finished).toBe(true);
    await clock.advanceAndSettle(200);
  });
});
