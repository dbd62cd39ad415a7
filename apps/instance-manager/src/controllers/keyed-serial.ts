/**
 * Runs async functions one at a time per key (an instance id): every state change and event of one
 * instance happens in order within this process, so `instance-ready` is always queued before the
 * same instance's `instance-withdraw` or `instance-gone`. A function must not call `run` for its own
 * key (that would wait for itself).
 */
export function createKeyedSerial() {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const next = previous.then(fn, fn);
      const tail = next.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return next;
    },
    /** Keys with work queued or running. */
    size: () => tails.size,
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

/** At most `limit` holders at once; the rest wait in order. */
export function createSemaphore(limit: number) {
  let held = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(): Promise<void> {
      if (held < limit) {
        held += 1;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else held -= 1;
    },
  };
}
