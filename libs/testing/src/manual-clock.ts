// The project's one clock for tests: it has the shape of service-kit's `Clock` (now, sleep, schedule,
// every), and time moves only when the test says so.

/** A pending timer of a {@link ManualClock}. */
interface ManualTimer {
  at: number;
  /** Creation order: timers due at the same time fire in the order they were set. */
  readonly seq: number;
  /** Re-arms this much later after firing; undefined for a one-shot timer. */
  readonly period: number | undefined;
  readonly run: () => void;
}

/** Settle rounds: enough for promise chains several awaits deep (Redis-free fakes, in-memory I/O). */
const SETTLE_ROUNDS = 30;

/**
 * Time under a spec's control. {@link ManualClock.advance} fires due timers synchronously, in due
 * order; {@link ManualClock.advanceAndSettle} lets pending promises run before each timer and after
 * the last, for code whose timers are set at the end of async work.
 */
export class ManualClock {
  #now: number;
  #seq = 0;
  #timers: ManualTimer[] = [];

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.#now = start;
  }

  now = (): number => this.#now;

  schedule = (run: () => void, ms: number): { cancel(): void } =>
    this.#add({ at: this.#now + Math.max(0, ms), seq: this.#seq++, period: undefined, run });

  every = (ms: number, run: () => void): { cancel(): void } =>
    this.#add({ at: this.#now + ms, seq: this.#seq++, period: ms, run });

  /** Resolves once the clock has moved `ms` on, or at once (without an error) when `signal` aborts. */
  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = this.schedule(resolve, ms);
      signal?.addEventListener('abort', () => (timer.cancel(), resolve()), { once: true });
    });

  /** Pending timers. */
  get pending(): number {
    return this.#timers.length;
  }

  /** How far in the future each pending timer is due, in the order they were set. */
  pendingDelays(): number[] {
    return this.#timers.map((timer) => timer.at - this.#now);
  }

  /** Moves time forward by `ms`, running each timer that falls due on the way, earliest first. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (let due = this.#next(until); due; due = this.#next(until)) this.#fire(due);
    this.#now = until;
  }

  /** As {@link ManualClock.advance}, letting pending promise chains run before each timer and after. */
  async advanceAndSettle(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      await this.settle();
      const due = this.#next(until);
      if (!due) break;
      this.#fire(due);
    }
    this.#now = until;
    await this.settle();
  }

  /** Lets pending promise chains run (no time passes). */
  async settle(): Promise<void> {
    for (let round = 0; round < SETTLE_ROUNDS; round += 1)
      await new Promise((resolve) => setImmediate(resolve));
  }

  #add(timer: ManualTimer): { cancel(): void } {
    this.#timers.push(timer);
    return { cancel: () => void (this.#timers = this.#timers.filter((entry) => entry !== timer)) };
  }

  #next(until: number): ManualTimer | undefined {
    let found: ManualTimer | undefined;
    for (const timer of this.#timers) {
      if (timer.at > until) continue;
      if (!found || timer.at < found.at || (timer.at === found.at && timer.seq < found.seq)) found = timer;
    }
    return found;
  }

  #fire(timer: ManualTimer): void {
    this.#now = Math.max(this.#now, timer.at);
    if (timer.period === undefined) this.#timers = this.#timers.filter((entry) => entry !== timer);
    else timer.at += timer.period;
    timer.run();
  }
}
