import type { CancelTimer, Clock } from '../clock';

interface Timer {
  readonly period: number;
  due: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** A clock for tests: time moves only through {@link ManualClock.advance}, which fires due timers in order. */
export class ManualClock implements Clock {
  #now: number;
  readonly #timers = new Set<Timer>();

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  every(ms: number, fn: () => void): CancelTimer {
    const timer: Timer = { period: ms, due: this.#now + ms, fn, cancelled: false };
    this.#timers.add(timer);
    return () => {
      timer.cancelled = true;
      this.#timers.delete(timer);
    };
  }

  /** Moves time forward by `ms`, running every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const next = [...this.#timers].filter((t) => t.due <= target).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.#now = next.due;
      next.due += next.period;
      next.fn();
    }
    this.#now = target;
  }
}
