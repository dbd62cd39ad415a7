import type { WinningTicket } from '@sandbox/protocol';
import type { SimStore, SubmitResult } from './sim-store';

/** Stores a delivery durably; resolves once its transaction is committed (fsynced). */
export type SubmitDelivery = (ticket: WinningTicket, now: number) => Promise<SubmitResult>;

interface Pending {
  readonly ticket: WinningTicket;
  readonly now: number;
  readonly resolve: (result: SubmitResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: deliveries that arrive in the same turn of the event loop are stored in one SQLite
 * transaction, so concurrent deliveries share one fsync instead of paying one each (with
 * `synchronous=FULL` a commit per request bounds the simulator at a few hundred tickets/s). Each
 * caller still gets its answer only after its own row is on disk.
 */
export function createSubmitBatcher(store: SimStore): SubmitDelivery {
  let queue: Pending[] = [];

  const flush = (): void => {
    const batch = queue;
    queue = [];
    let results: SubmitResult[];
    try {
      results = store.submitMany(batch);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => pending.resolve(results[index] as SubmitResult));
  };

  return (ticket, now) =>
    new Promise<SubmitResult>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ ticket, now, resolve, reject });
    });
}
