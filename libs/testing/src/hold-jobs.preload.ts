// Loaded into a service process with `node --import <this file>`: every BullMQ job its workers take
// is held, never finished, and announced on stdout as "holding <queue> <jobId>". A spec kills the
// process (kill -9) after that line: a crash in the middle of a job, at a known moment, not a race.
import { Worker } from 'bullmq';

type CallProcessJob = (
  job: { id?: string | undefined },
  token: string,
  signal?: AbortSignal,
) => Promise<unknown>;

const prototype = Worker.prototype as unknown as { callProcessJob: CallProcessJob; name: string };
prototype.callProcessJob = function holdJob(this: { name: string }, job) {
  process.stdout.write(`holding ${this.name} ${String(job.id)}\n`);
  return new Promise<never>(() => undefined);
};
