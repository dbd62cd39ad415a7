/** Time source and delay, injected so tests and benchmarks control them. */
export interface Clock {
  /** Milliseconds, monotonic enough for measuring intervals. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The real clock: `performance.now()` and timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
