import { Job, Queue, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DEFAULT_QUEUE_PREFIX } from './defaults';
import { workerConnectionPrefix, workerNamesInClientList } from './worker-name';

/** Dependencies of {@link reclaimOrphanedJobs}. */
export interface ReclaimDeps {
  /** Any connection to the queue's Redis; shared, so the caller closes it. */
  connection: Redis;
  /** BullMQ key prefix. @defaultValue {@link DEFAULT_QUEUE_PREFIX} */
  prefix?: string;
  logger: Logger;
  /**
   * How many unfinished runs a job may have before an orphaned job fails instead of going back to
   * wait: a job that kills its process every time must not crash-loop the service. @defaultValue 3
   */
  maxUnfinishedRuns?: number;
}

/** What {@link reclaimOrphanedJobs} did, by job id. */
export interface ReclaimResult {
  /** Moved back to wait: the next worker takes them at once. */
  readonly reclaimed: readonly string[];
  /** Failed: they had already been left unfinished too often. */
  readonly failed: readonly string[];
}

const DEFAULT_MAX_UNFINISHED_RUNS = 3;

interface ActiveJobHolder {
  readonly id: string;
  /** The worker name BullMQ recorded when it took the job (`pb`); absent for unnamed workers. */
  readonly workerName: string | undefined;
  /** The job's lock token; absent once the lock expired (BullMQ's stalled check owns it then). */
  readonly token: string | undefined;
}

/**
 * Puts back at once the active jobs of `queueName` whose worker is gone, so a service killed
 * mid-job resumes the work as soon as it is back instead of after BullMQ's stalled-job check (lock
 * duration plus stalled interval). A service runs it before its own workers start.
 *
 * A job is orphaned when the worker that took it was named (`pb`) and no Redis client carries that
 * worker's connection name any more: worker names are unique per process
 * ({@link processWorkerName}), so a live worker of any replica is always seen. Each move goes
 * through BullMQ's own `moveToWait` / `moveToFailed` with the lock token read together with the
 * worker name, so a job that changed hands since is never moved. Jobs of unnamed workers and jobs
 * whose lock already expired are left to BullMQ's stalled check. A live worker whose connection is
 * down at that very moment (reconnecting) looks dead: its job then runs twice, as after a stalled
 * check, which idempotent processors absorb.
 */
export async function reclaimOrphanedJobs(queueName: string, deps: ReclaimDeps): Promise<ReclaimResult> {
  const prefix = deps.prefix ?? DEFAULT_QUEUE_PREFIX;
  const logger = deps.logger.child({ queue: queueName });
  const queue = new Queue(queueName, { connection: deps.connection, prefix });
  queue.on('error', (err: Error) => logger.error({ err }, 'reclaim queue error'));
  try {
    // Holders first, live workers second: a worker that took a job is connected before it took it.
    const holders = await activeJobHolders(deps.connection, `${prefix}:${queueName}:`);
    const named = holders.filter((holder) => holder.workerName !== undefined && holder.token !== undefined);
    if (named.length === 0) return { reclaimed: [], failed: [] };
    const live = await liveWorkerNames(deps.connection, workerConnectionPrefix(prefix, queueName));
    const reclaimed: string[] = [];
    const failed: string[] = [];
    for (const holder of named) {
      if (live.has(holder.workerName ?? '')) continue;
      const outcome = await reclaimOne(queue, holder, deps.maxUnfinishedRuns ?? DEFAULT_MAX_UNFINISHED_RUNS);
      if (outcome === 'reclaimed') reclaimed.push(holder.id);
      if (outcome === 'failed') failed.push(holder.id);
      const fields = { jobId: holder.id, deadWorker: holder.workerName, outcome };
      logger.warn(fields, 'job orphaned by a dead worker');
    }
    return { reclaimed, failed };
  } finally {
    await queue.close();
  }
}

/** Each active job's worker name and lock token, read together (one MULTI per job). */
async function activeJobHolders(redis: Redis, keyPrefix: string): Promise<ActiveJobHolder[]> {
  const ids = await redis.lrange(`${keyPrefix}active`, 0, -1);
  const holders: ActiveJobHolder[] = [];
  for (const id of ids) {
    const replies = await redis.multi().hget(`${keyPrefix}${id}`, 'pb').get(`${keyPrefix}${id}:lock`).exec();
    const [workerName, token] = (replies ?? []).map(([err, value]) => {
      if (err) throw err;
      return typeof value === 'string' ? value : undefined;
    });
    holders.push({ id, workerName, token });
  }
  return holders;
}

/** The names of the workers of one queue with a connection open now. */
async function liveWorkerNames(redis: Redis, connectionPrefix: string): Promise<Set<string>> {
  return workerNamesInClientList(String(await redis.call('CLIENT', 'LIST')), connectionPrefix);
}

const CHANGED_HANDS = /lock|missing key|not in the active state/i;

type Outcome = 'reclaimed' | 'failed' | 'changed-hands';

async function reclaimOne(
  queue: Queue,
  holder: ActiveJobHolder,
  maxUnfinishedRuns: number,
): Promise<Outcome> {
  const job = await Job.fromId(queue, holder.id);
  if (job === undefined || holder.token === undefined) return 'changed-hands';
  try {
    if (job.attemptsStarted - job.attemptsMade > maxUnfinishedRuns) {
      const error = new UnrecoverableError(
        `worker died during ${job.attemptsStarted - job.attemptsMade} runs`,
      );
      await job.moveToFailed(error, holder.token, false);
      return 'failed';
    }
    await job.moveToWait(holder.token);
    return 'reclaimed';
  } catch (error) {
    // BullMQ refuses the move when the lock token no longer matches or the job left active or was
    // removed meanwhile: the job is someone else's now.
    if (error instanceof Error && CHANGED_HANDS.test(error.message)) return 'changed-hands';
    throw error;
  }
}
