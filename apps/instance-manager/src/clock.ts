import { setTimeout as delay } from 'node:timers/promises';

/** Wall-clock time (epoch milliseconds, stored in records) and delays; injected so tests control both. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early (without an error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}).catch(() => undefined),
};
