import { UNDELIVERED_TICKET_STATES, type TicketState } from '@sandbox/protocol';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { addDeliveryJobs } from '../jobs/delivery-job';
import type { TicketQueries } from '../store/ticket-queries';
import type { TicketStore } from '../store/ticket-store';

/** Dependencies of {@link reconcile}. */
export interface ReconcileDeps {
  readonly store: TicketStore;
  readonly queries: TicketQueries;
  readonly queue: Queue;
  readonly logger: Logger;
  readonly now: () => number;
  /** Terminal records older than this are deleted; 0 keeps them. */
  readonly retentionMs: number;
  /** @defaultValue 500 */
  readonly batchSize?: number;
}

/** What one reconciliation changed. */
export interface ReconcileReport {
  /** Jobs created for owed tickets that had none (or only a finished one). */
  readonly jobsAdded: number;
  /** Queued jobs removed because their ticket no longer needs a delivery. */
  readonly jobsRemoved: number;
  readonly recordsDeleted: number;
}

const owed = new Set<TicketState | undefined>(UNDELIVERED_TICKET_STATES);
const QUEUED_STATES = ['waiting', 'delayed', 'prioritized', 'paused'] as const;

/**
 * Makes the queue agree with the records: every ticket still owed a delivery gets a live job (one that
 * is missing, completed or failed is replaced), and queued jobs of tickets that were acknowledged or
 * finished are removed, so nothing terminal is delivered again. Then old terminal records are deleted.
 * Idempotent; safe while workers run.
 */
export async function reconcile(deps: ReconcileDeps): Promise<ReconcileReport> {
  const jobsAdded = await reviveOwed(deps);
  const jobsRemoved = await dropFinished(deps);
  let recordsDeleted = 0;
  if (deps.retentionMs > 0) {
    const before = deps.now() - deps.retentionMs;
    for (let batch = -1; batch !== 0; recordsDeleted += batch) {
      batch = await deps.store.deleteTerminalBefore(before, deps.batchSize ?? 500);
    }
  }
  const report = { jobsAdded, jobsRemoved, recordsDeleted };
  if (jobsAdded + jobsRemoved + recordsDeleted > 0) deps.logger.info(report, 'reconciled tickets and jobs');
  return report;
}

async function reviveOwed({ store, queries, queue, batchSize = 500 }: ReconcileDeps): Promise<number> {
  let added = 0;
  for (let start = 0; ; start += batchSize) {
    const hashes = await queries.undelivered(start, batchSize);
    if (hashes.length === 0) return added;
    const { completed = '', failed = '' } = queue.keys;
    const pipeline = store.redis.pipeline();
    for (const hash of hashes) {
      pipeline.exists(queue.toKey(hash));
      pipeline.zscore(completed, hash);
      pipeline.zscore(failed, hash);
    }
    const replies = ((await pipeline.exec()) ?? []).map(([error, reply]) => {
      if (error) throw error;
      return reply;
    });
    const missing: string[] = [];
    for (const [i, hash] of hashes.entries()) {
      const [exists, completed, failed] = replies.slice(i * 3, i * 3 + 3);
      if (exists === 1 && completed === null && failed === null) continue;
      if (exists === 1) await queue.remove(hash);
      missing.push(hash);
    }
    await addDeliveryJobs(queue, missing);
    added += missing.length;
  }
}

async function dropFinished({ queries, queue, batchSize = 500 }: ReconcileDeps): Promise<number> {
  let removed = 0;
  for (const type of QUEUED_STATES) {
    for (let start = 0; ;) {
      // Ids only (job id = ticket hash): loading each job would cost Redis and this process far more.
      const ids = await queue.getRanges([type], start, start + batchSize - 1, true);
      if (ids.length === 0) break;
      const states = await queries.statesOf(ids);
      let removedHere = 0;
      for (const [i, id] of ids.entries()) {
        if (owed.has(states[i])) continue;
        // A job a worker took meanwhile is locked and stays; the worker skips finished tickets anyway.
        if ((await queue.remove(id)) === 1) removedHere += 1;
      }
      removed += removedHere;
      start += ids.length - removedHere;
    }
  }
  return removed;
}
