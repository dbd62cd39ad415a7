import type { JobName, QueueDefinition } from '@sandbox/protocol';
import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { isRedisUnavailableError } from './connection';
import { DEFAULT_JOB_OPTIONS, DEFAULT_QUEUE_PREFIX } from './defaults';
import { QueueUnavailableError } from './errors';
import { parseJobData } from './job-data';
import { readyOrConnecting } from './redis-info';

/** What a producer accepts for one job: the schema's input type (before defaults and transforms). */
export type JobInput<Q extends QueueDefinition, N extends JobName<Q>> = z.input<Q['jobs'][N]>;

/** Per-job options a producer passes through to BullMQ; everything else comes from the defaults. */
export type AddJobOptions = Pick<
  JobsOptions,
  'jobId' | 'delay' | 'priority' | 'attempts' | 'backoff' | 'lifo'
>;

/** Dependencies of {@link createProducer}. */
export interface ProducerDeps {
  /** A `producer` connection from `createRedisConnection`; shared, so the caller closes it. */
  connection: Redis;
  /** BullMQ key prefix. @defaultValue {@link DEFAULT_QUEUE_PREFIX} */
  prefix?: string;
  logger: Logger;
  /**
   * How long `add` may wait for a connection attempt already in flight (e.g. right after start-up).
   * Between attempts (Redis down) it refuses at once. @defaultValue 2000
   */
  connectWaitMs?: number;
}

/** A typed producer for one queue. */
export interface Producer<Q extends QueueDefinition> {
  /** The underlying BullMQ queue (counts, inspection, `obliterate` in tests). */
  readonly queue: Queue;
  /**
   * Validates `data` with the job's schema and adds the job. Throws `JobDataError` (`invalid_request`)
   * for invalid data or secret field names, `QueueUnavailableError` (`unavailable`) when Redis cannot
   * take the job now. With a `jobId` that already exists, BullMQ keeps the existing job and returns it (dedupe).
   */
  add<N extends JobName<Q>>(name: N, data: JobInput<Q, N>, options?: AddJobOptions): Promise<Job>;
  /** Closes the queue; the shared connection stays open. */
  close(): Promise<void>;
}

/**
 * Creates a producer over a queue definition, with {@link DEFAULT_JOB_OPTIONS}. Job schemas must be
 * plain JSON data whose output parses again to itself, since workers parse the stored output.
 */
export function createProducer<Q extends QueueDefinition>(definition: Q, deps: ProducerDeps): Producer<Q> {
  const { connection, connectWaitMs = 2_000 } = deps;
  const logger = deps.logger.child({ queue: definition.name });
  const queue = new Queue(definition.name, {
    connection,
    prefix: deps.prefix ?? DEFAULT_QUEUE_PREFIX,
    defaultJobOptions: structuredClone(DEFAULT_JOB_OPTIONS),
  });
  queue.on('error', (err: Error) => logger.error({ err }, 'queue error'));

  const unavailable = (cause?: unknown): QueueUnavailableError =>
    new QueueUnavailableError(`queue ${definition.name} is unavailable`, { cause });

  return {
    queue,
    async add(name, data, options) {
      const payload = parseJobData(definition, name, data);
      // BullMQ would wait, without a deadline, for a connection that is not ready; refuse instead.
      if (!(await readyOrConnecting(connection, connectWaitMs))) throw unavailable();
      try {
        return await queue.add(name, payload, options);
      } catch (error) {
        if (isRedisUnavailableError(error)) throw unavailable(error);
        throw error;
      }
    },
    close: () => queue.close(),
  };
}
