// A worker process that takes jobs and holds them until it is killed: a service that dies mid-job.
// argv: redis url, queue prefix, queue name. Prints "holding <jobId>" once it has a job.
import { defineQueue } from '@sandbox/protocol';
import { pino } from 'pino';
import { z } from 'zod';
import { createRedisConnection } from '../connection';
import { createWorker } from '../worker';

const [url, prefix, queueName] = process.argv.slice(2);
if (!url || !prefix || !queueName) throw new Error('usage: holding-worker <redis url> <prefix> <queue name>');
const definition = defineQueue(queueName, { 'hold-job': z.strictObject({ label: z.string() }) });
const logger = pino({ level: 'warn' });
createWorker(
  definition,
  {
    'hold-job': async (_data, job) => {
      process.stdout.write(`holding ${String(job.id)}\n`);
      await new Promise<never>(() => undefined);
    },
  },
  { connection: createRedisConnection(url, 'worker'), prefix, logger },
);
