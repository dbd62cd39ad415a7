import { TICKET_DELIVERY_QUEUE } from '@sandbox/protocol';
import { parseJobData } from '@sandbox/queue';
import type { JobsOptions, Queue } from 'bullmq';

/** The custom backoff type of delivery jobs (see deliver-ticket.job.ts). */
export const DELIVERY_BACKOFF_TYPE = 'ticket-deadline';

/**
 * Options of every delivery job: retried until the ticket's deadline rather than a number of times
 * (the processor ends the job then), with the delay chosen by the processor.
 */
export const DELIVERY_JOB_OPTIONS = Object.freeze({
  attempts: 1_000_000,
  backoff: Object.freeze({ type: DELIVERY_BACKOFF_TYPE }),
}) satisfies JobsOptions;

/**
 * Adds one delivery job per hash (job id = hash; a job that exists is left as it is), in one MULTI on
 * the queue's connection. Job data is the hash only: the ticket and its secrets stay in the record.
 */
export async function addDeliveryJobs(queue: Queue, hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  await queue.addBulk(
    hashes.map((ticketHash) => ({
      name: 'deliver-ticket',
      data: parseJobData(TICKET_DELIVERY_QUEUE, 'deliver-ticket', { ticketHash }),
      opts: { ...DELIVERY_JOB_OPTIONS, jobId: ticketHash },
    })),
  );
}
