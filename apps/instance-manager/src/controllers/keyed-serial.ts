import { Mutex } from 'async-mutex';

/**
 * Runs async functions one at a time per key (an instance id): every state change and event of one
 * instance happens in order within this process, so `instance-ready` is always queued before the
 * same instance's `instance-withdraw` or `instance-gone`. A function must not call `run` for its own
 * key (that would wait for itself).
 */
export function createKeyedSerial() {
  const locks = new Map<string, Mutex>();
  return {
    async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      let lock = locks.get(key);
      if (!lock) locks.set(key, (lock = new Mutex()));
      try {
        return await lock.runExclusive(fn);
      } finally {
        // A queued run holds the lock as soon as this one releases it, so an unlocked mutex is idle.
        if (!lock.isLocked() && locks.get(key) === lock) locks.delete(key);
      }
    },
    /** Keys with work queued or running. */
    size: () => locks.size,
  };
}

export type KeyedSerial = ReturnType<typeof createKeyedSerial>;

/**
 * Per-key coalescing: triggering a key while its run is in progress schedules exactly one more run
 * after it (level-based work only needs the latest state), never a queue of them.
 */
export function createCoalescer(
  run: (key: string) => Promise<void>,
  onError: (key: string, error: unknown) => void,
) {
  const entries = new Map<string, { again: boolean; done: Promise<void> }>();
  return {
    trigger(key: string): Promise<void> {
      const current = entries.get(key);
      if (current) {
        current.again = true;
        return current.done;
      }
      const entry = { again: true, done: Promise.resolve() };
      entries.set(key, entry);
      entry.done = (async () => {
        try {
          while (entry.again) {
            entry.again = false;
            await run(key).catch((error: unknown) => onError(key, error));
          }
        } finally {
          entries.delete(key);
        }
      })();
      return entry.done;
    },
    /** Resolves when nothing is running. */
    async idle(): Promise<void> {
      while (entries.size > 0) await Promise.all([...entries.values()].map((entry) => entry.done));
    },
  };
}
