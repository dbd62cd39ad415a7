import { backoffDelay, realSchedule, type Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';

/** Options of {@link createWorkQueue}. */
export interface WorkQueueOptions {
  /** Brings one key's objects to their desired state; a throw retries the key with backoff. */
  reconcile: (key: string) => Promise<void>;
  logger: Pick<Logger, 'error'>;
  /** For logs. */
  name: string;
  /** Delay before the first retry of a failing key; doubles per failure. @defaultValue 500 */
  initialRetryMs?: number;
  /** @defaultValue 30000 */
  maxRetryMs?: number;
  /** @defaultValue setTimeout */
  schedule?: Schedule;
  /** Jitter source in [0, 1). @defaultValue Math.random */
  random?: () => number;
}

/** Keys waiting to be reconciled, each at most once; see {@link createWorkQueue}. */
export interface WorkQueue {
  /** Queues the key unless it is queued already; a key being reconciled now runs once more after. */
  add(key: string): void;
  /** Queues the key after `ms` (a delayed add; one pending delay per key). */
  addAfter(key: string, ms: number): void;
  /** Drops the key's queued work and pending retry (its object is no longer wanted). */
  forget(key: string): void;
  /** Failures in a row of the key (0 after a success). */
  failures(key: string): number;
  /** Resolves once nothing is queued or running (delayed retries do not count). */
  idle(): Promise<void>;
  /** Stops taking keys, cancels retries and waits for the reconcile in progress. */
  close(): Promise<void>;
}

/**
 * A controller's work queue, as client-go has it: informer events add `namespace/name` keys; each key
 * is queued at most once however many events arrive, reconciled one at a time (never two reconciles of
 * one key at once), and re-queued with capped exponential backoff while its reconcile throws.
 */
export function createWorkQueue(options: WorkQueueOptions): WorkQueue {
  const schedule = options.schedule ?? realSchedule;
  const backoff = {
    initialMs: options.initialRetryMs ?? 500,
    maxMs: options.maxRetryMs ?? 30_000,
    random: options.random ?? Math.random,
  };
  const queued = new Set<string>();
  const failures = new Map<string, number>();
  const delayed = new Map<string, { cancel(): void }>();
  let working: Promise<void> | undefined;
  let closed = false;

  async function reconcileOne(key: string): Promise<void> {
    try {
      await options.reconcile(key);
      failures.delete(key);
    } catch (error) {
      const count = (failures.get(key) ?? 0) + 1;
      failures.set(key, count);
      const delayMs = Math.round(backoffDelay(count, backoff));
      options.logger.error({ queue: options.name, key, err: error, delayMs }, 'reconcile failed; retrying');
      queue.addAfter(key, delayMs);
    }
  }

  async function drain(): Promise<void> {
    try {
      for (let [key] = queued; key !== undefined && !closed; [key] = queued) {
        queued.delete(key);
        await reconcileOne(key);
      }
    } finally {
      // Cleared in the turn the loop saw the queue empty, so a later add always starts a new drain.
      working = undefined;
    }
  }

  const queue: WorkQueue = {
    add(key) {
      if (closed) return;
      queued.add(key);
      working ??= drain();
    },
    addAfter(key, ms) {
      if (closed || delayed.has(key)) return;
      delayed.set(
        key,
        schedule(() => {
          delayed.delete(key);
          queue.add(key);
        }, ms),
      );
    },
    forget(key) {
      queued.delete(key);
      failures.delete(key);
      delayed.get(key)?.cancel();
      delayed.delete(key);
    },
    failures: (key) => failures.get(key) ?? 0,
    async idle() {
      while (working) await working;
    },
    async close() {
      closed = true;
      for (const timer of delayed.values()) timer.cancel();
      delayed.clear();
      await working;
    },
  };
  return queue;
}
