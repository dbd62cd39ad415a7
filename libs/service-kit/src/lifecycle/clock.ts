import { setTimeout as wait } from 'node:timers/promises';
import { realSchedule, type Schedule, type TimerHandle } from './timers';

/**
 * Time and timers, injected so tests and benchmarks control both (a manual clock in tests, never
 * sleeping). Every wall or monotonic clock of the project is one of these.
 */
export interface Clock {
  /** Milliseconds: since the Unix epoch ({@link systemClock}) or from an arbitrary origin ({@link monotonicClock}). */
  now(): number;
  /** Resolves after `ms`, or early (without an error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A cancellable one-shot timer; keeps the process alive while pending. */
  schedule: Schedule;
  /** Calls `callback` every `ms` until cancelled; never keeps the process alive on its own. */
  every(ms: number, callback: () => void): TimerHandle;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  wait(ms, undefined, signal ? { signal } : {}).catch(() => undefined);

function every(ms: number, callback: () => void): TimerHandle {
  const timer = setInterval(callback, ms);
  timer.unref();
  return { cancel: () => clearInterval(timer) };
}

/** The real wall clock: `Date.now()` (epoch milliseconds, for timestamps that are stored or sent). */
export const systemClock: Clock = { now: () => Date.now(), sleep, schedule: realSchedule, every };

/** The real monotonic clock: `performance.now()`, for measuring intervals (never stored). */
export const monotonicClock: Clock = { now: () => performance.now(), sleep, schedule: realSchedule, every };
