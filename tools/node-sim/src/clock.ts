/** Cancels a timer created by a {@link Clock}. */
export type CancelTimer = () => void;

/**
 * Time source and periodic timers of the simulator. Node's sweeps (expiry every heartbeat interval,
 * O2R keepalives every 10 s, payment metering every second) all run through one, so tests can drive
 * them with a manual clock instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` every `ms` milliseconds until cancelled. */
  every(ms: number, fn: () => void): CancelTimer;
}

/** The real clock. Timers are unref'd so they never keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};
