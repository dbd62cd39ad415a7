// Timers under a spec's control: `advance` runs due timers in order, letting promises settle in between.
import type { Schedule } from '@sandbox/service-kit';

export interface ManualClock {
  now(): number;
  readonly schedule: Schedule;
  /** Lets pending promise chains run (no time passes). */
  settle(): Promise<void>;
  /** Moves time forward by `ms`, running each timer that falls due on the way. */
  advance(ms: number): Promise<void>;
  /** Pending timers. */
  readonly pending: number;
}

export function createManualClock(start = 1_000_000): ManualClock {
  let now = start;
  let timers: Array<{ at: number; run: () => void }> = [];
  const settle = async (): Promise<void> => {
    for (let round = 0; round < 30; round += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    now: () => now,
    schedule(run, ms) {
      const timer = { at: now + Math.max(0, ms), run };
      timers.push(timer);
      return { cancel: () => void (timers = timers.filter((entry) => entry !== timer)) };
    },
    settle,
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        await settle();
        const due = timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers = timers.filter((timer) => timer !== due);
        now = Math.max(now, due.at);
        due.run();
      }
      now = until;
      await settle();
    },
    get pending() {
      return timers.length;
    },
  };
}
