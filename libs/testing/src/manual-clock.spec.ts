import { describe, expect, it } from '@jest/globals';
import { ManualClock } from './manual-clock';

describe('ManualClock', () => {
  it('fires one-shot and periodic timers in due order, and cancelled ones never', () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.every(100, () => fired.push(`tick@${clock.now()}`));
    clock.schedule(() => fired.push(`once@${clock.now()}`), 150);
    clock.schedule(() => fired.push('never'), 120).cancel();
    clock.advance(250);
    expect(fired).toEqual(['tick@100', 'once@150', 'tick@200']);
    expect(clock.now()).toBe(250);
    expect(clock.pendingDelays()).toEqual([50]);
  });

  it('settles promises between timers, so timers set after async work fire within the same advance', async () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    clock.schedule(() => {
      void Promise.resolve().then(() => clock.schedule(() => fired.push(clock.now()), 10));
    }, 10);
    await clock.advanceAndSettle(30);
    expect(fired).toEqual([20]);
    expect(clock.pending).toBe(0);
  });

  it('sleeps until the clock moves on, or until aborted', async () => {
    const clock = new ManualClock(0);
    let slept = false;
    const sleeping = clock.sleep(1_000).then(() => (slept = true));
    clock.advance(999);
    await clock.settle();
    expect(slept).toBe(false);
    clock.advance(1);
    await sleeping;
    const abort = new AbortController();
    const aborted = clock.sleep(60_000, abort.signal);
    abort.abort();
    await aborted;
    expect(clock.pending).toBe(0);
  });
});
