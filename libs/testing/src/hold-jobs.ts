import { fileURLToPath } from 'node:url';

/**
 * A `node --import` preload for a service process: its workers hold every job they take until the
 * process is killed, announcing each with {@link holdingLine} on stdout.
 */
export const HOLD_JOBS_PRELOAD = fileURLToPath(new URL('./hold-jobs.preload.ts', import.meta.url));

/** The line {@link HOLD_JOBS_PRELOAD} prints once a worker of `queue` holds job `jobId`. */
export function holdingLine(queue: string, jobId: string): string {
  return `holding ${queue} ${jobId}\n`;
}
