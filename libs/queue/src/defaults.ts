import type { DefaultJobOptions } from 'bullmq';

/**
 * Job options every producer's queue starts from (set once here, STYLE 7): retries with
 * exponential backoff (1 s, 2 s, 4 s, 8 s), a short tail of completed jobs and a longer one of
 * failed jobs for diagnosis. A job's own options override these.
 */
export const DEFAULT_JOB_OPTIONS = Object.freeze({
  attempts: 5,
  backoff: Object.freeze({ type: 'exponential', delay: 1_000 }),
  removeOnComplete: Object.freeze({ count: 1_000 }),
  removeOnFail: Object.freeze({ count: 10_000 }),
}) satisfies DefaultJobOptions;

/**
 * BullMQ's key prefix when none is given. Persistent: producers, workers and the dashboard must
 * agree on it, and changing it strands every queued job.
 */
export const DEFAULT_QUEUE_PREFIX = 'bull';
