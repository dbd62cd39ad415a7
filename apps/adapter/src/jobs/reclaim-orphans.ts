import type { TypedWorker } from '@sandbox/queue';

/** Puts back the jobs of every worker's queue that a dead adapter process was holding. */
export async function reclaimOrphans(workers: readonly TypedWorker[]): Promise<void> {
  for (const worker of workers) await worker.reclaimOrphans();
}
