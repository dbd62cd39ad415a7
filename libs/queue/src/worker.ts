import { setTimeout as sleep } from 'node:timers/promises';
import { summarizeZodIssues, type JobData, type JobName, type QueueDefinition } from '@sandbox/protocol';
import { UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DEFAULT_QUEUE_PREFIX } from './defaults';
import { jobSchema } from './job-data';
import { reclaimOrphanedJobs, type ReclaimResult } from './reclaim';
import { processWorkerName } from './worker-name';

/** One async handler per job name, receiving the parsed (typed) data and the BullMQ job. */
export type JobHandlers<Q extends QueueDefinition> = {
  [N in JobName<Q>]: (data: JobData<Q, N>, job: Job) => Promise<unknown>;
};

/** Dependencies of {@link createWorker}. */
export interface WorkerDeps {
  /** A `worker` connection (`maxRetriesPerRequest: null`); shared, so the caller closes it. */
  connection: Redis;
  /** BullMQ key prefix. @defaultValue {@link DEFAULT_QUEUE_PREFIX} */
  prefix?: string;
  logger: Logger;
  /** Jobs processed at once. @defaultValue 1 */
  concurrency?: number;
  /** Start fetching jobs at once; false to call `worker.run()` later (e.g. after readiness). @defaultValue true */
  autorun?: boolean;
  /**
   * BullMQ tuning passed through as is: a rate `limiter`, lock and stalled-check timings, and
   * `settings.backoffStrategy` for jobs whose `backoff.type` is custom. @defaultValue BullMQ's
   */
  tuning?: WorkerTuning;
  /**
   * The worker's name: BullMQ names its connection after it and records it on every job it takes,
   * which is how {@link reclaimOrphanedJobs} tells a dead holder from a live one. Must be unique to
   * this process. @defaultValue {@link processWorkerName}
   */
  name?: string;
}

/** The BullMQ worker options {@link WorkerDeps.tuning} may set. */
export type WorkerTuning = Pick<
  WorkerOptions,
  'limiter' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'settings'
>;

/** A typed worker for one queue. */
export interface TypedWorker {
  /** The underlying BullMQ worker. */
  readonly worker: Worker;
  /**
   * Moves back to wait this queue's jobs whose worker died (see `reclaimOrphanedJobs`). Run it
   * before `worker.run()` when the worker was created with `autorun: false`, so work a killed
   * process left behind resumes at once rather than after BullMQ's stalled check.
   */
  reclaimOrphans(): Promise<ReclaimResult>;
  /**
   * For a worker created with `autorun: false`: {@link TypedWorker.reclaimOrphans}, then starts taking
   * jobs (a failure of the run loop is logged). Resolves once the reclaim is done.
   */
  start(): Promise<void>;
  /** Stops taking jobs and waits for the active ones (BullMQ has no timeout here; the caller's shutdown timer does). */
  close(): Promise<void>;
}

const MAX_NAME_IN_REASON = 100;

/**
 * Creates a worker that parses each job's data with its schema before calling the handler. A job
 * with malformed data or an unknown name fails once with `UnrecoverableError` (the reason lists
 * paths and messages, never values) and is not retried; any other throw is retried with backoff.
 */
export function createWorker<Q extends QueueDefinition>(
  definition: Q,
  handlers: JobHandlers<Q>,
  deps: WorkerDeps,
): TypedWorker {
  const logger = deps.logger.child({ queue: definition.name });
  const byName = handlers as Record<string, ((data: unknown, job: Job) => Promise<unknown>) | undefined>;

  const processor = async (job: Job): Promise<unknown> => {
    const schema = jobSchema(definition, job.name);
    const handler = Object.hasOwn(byName, job.name) ? byName[job.name] : undefined;
    if (!schema || !handler) {
      throw new UnrecoverableError(`unknown job name "${job.name.slice(0, MAX_NAME_IN_REASON)}"`);
    }
    const parsed = schema.safeParse(job.data);
    if (!parsed.success) {
      throw new UnrecoverableError(`malformed job data: ${summarizeZodIssues(parsed.error)}`);
    }
    return handler(parsed.data, job);
  };

  const worker = new Worker(definition.name, processor, {
    ...deps.tuning,
    connection: deps.connection,
    prefix: deps.prefix ?? DEFAULT_QUEUE_PREFIX,
    concurrency: deps.concurrency ?? 1,
    autorun: deps.autorun ?? true,
    name: deps.name ?? processWorkerName(),
  });
  worker.on('error', (err: Error) => logger.error({ err }, 'worker error'));
  worker.on('failed', (job: Job | undefined, err: Error) => {
    const fields = {
      jobId: job?.id,
      jobName: job?.name,
      attemptsMade: job?.attemptsMade,
      reason: err.message,
    };
    logger.warn(fields, 'job failed');
  });
  const reclaimDeps = {
    connection: deps.connection,
    prefix: deps.prefix ?? DEFAULT_QUEUE_PREFIX,
    logger: deps.logger,
  };
  const reclaimOrphans = () => reclaimOrphanedJobs(definition.name, reclaimDeps);
  const start = async (): Promise<void> => {
    await reclaimOrphans();
    worker.run().catch((err: unknown) => logger.error({ err }, 'worker stopped'));
  };
  return { worker, reclaimOrphans, start, close: () => closeWorker(worker) };
}

// BullMQ race (taskforcesh/bullmq#1810): a stalled-jobs check in flight when close() is called arms
// its 30 s timer afterwards, which keeps the process alive. Stop it once the check has returned.
const STALLED_CHECK_STOP_POLLS = 100;

async function closeWorker(worker: Worker): Promise<void> {
  await worker.close();
  const internals = worker as unknown as {
    stalledCheckerRunning?: boolean;
    stalledCheckStopper?: () => void;
  };
  for (let poll = 0; internals.stalledCheckerRunning === true && poll < STALLED_CHECK_STOP_POLLS; poll += 1) {
    internals.stalledCheckStopper?.();
    await sleep(10);
  }
}
