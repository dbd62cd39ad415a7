import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcessHandle } from '@sandbox/process';
import { defineQueue } from '@sandbox/protocol';
import {
  createMemoryLogger,
  parentEnv,
  startRedis,
  startTsProcess,
  uniquePrefix,
  waitFor,
  type RedisFixture,
} from '@sandbox/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createRedisConnection } from './connection';
import { reclaimOrphanedJobs } from './reclaim';
import { createWorker, type TypedWorker } from './worker';

const HOLDER = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'holding-worker.ts');
const QUEUE = 'test-reclaim';
const definition = defineQueue(QUEUE, { 'hold-job': z.strictObject({ label: z.string() }) });

describe('reclaiming the jobs of dead workers on a real Redis', () => {
  const memory = createMemoryLogger();
  let redis: RedisFixture;
  let connection: Redis;
  let prefix = '';
  let queue: Queue;
  const children: ChildProcessHandle[] = [];
  let worker: TypedWorker | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    connection = createRedisConnection(redis.url, 'worker');
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await Promise.all(children.splice(0).map((child) => child.kill()));
    await queue.obliterate({ force: true });
    await queue.close();
  }, 30_000);

  afterAll(async () => {
    await connection.quit();
    await redis.stop();
  });

  /** Starts a holder process and waits until it holds one job; returns the job's id. */
  const holderTakes = async (label: string): Promise<{ child: ChildProcessHandle; jobId: string }> => {
    const job = await queue.add('hold-job', { label });
    const child = startTsProcess(HOLDER, [redis.url, prefix, QUEUE], { env: parentEnv() });
    children.push(child);
    const holding = `holding ${String(job.id)}`;
    await waitFor(async () => child.stdout().includes(holding), {
      description: `a holder to take job ${label}`,
      timeoutMs: 60_000,
    });
    return { child, jobId: String(job.id) };
  };

  const start = (): void => {
    prefix = uniquePrefix('reclaim-int');
    queue = new Queue(QUEUE, { connection, prefix });
  };

  it('moves the job of a killed process back to wait at once and leaves the job of a live worker alone', async () => {
    start();
    const dead = await holderTakes('dead');
    const alive = await holderTakes('alive');
    const aliveLock = await connection.get(`${prefix}:${QUEUE}:${alive.jobId}:lock`);
    await dead.child.kill();

    const result = await reclaimOrphanedJobs(QUEUE, { connection, prefix, logger: memory.logger });

    expect(result).toEqual({ reclaimed: [dead.jobId], failed: [] });
    expect(await queue.getJobState(dead.jobId)).toBe('waiting');
    expect(await queue.getJobState(alive.jobId)).toBe('active');
    expect(await connection.get(`${prefix}:${QUEUE}:${alive.jobId}:lock`)).toBe(aliveLock);
    // The next worker runs it now, not after the dead worker's lock (30 s) and a stalled check.
    worker = createWorker(
      definition,
      { 'hold-job': async (data) => data.label },
      {
        connection,
        prefix,
        logger: memory.logger,
        name: 'reclaim-spec-next',
      },
    );
    await waitFor(async () => (await queue.getJobState(dead.jobId)) === 'completed', {
      description: 'the reclaimed job to complete',
      timeoutMs: 10_000,
    });
    expect(await queue.getJobState(alive.jobId)).toBe('active');
  }, 120_000);

  it('fails an orphaned job that was left unfinished more often than allowed', async () => {
    start();
    const dead = await holderTakes('crasher');
    await dead.child.kill();

    const result = await reclaimOrphanedJobs(QUEUE, {
      connection,
      prefix,
      logger: memory.logger,
      maxUnfinishedRuns: 0,
    });

    expect(result).toEqual({ reclaimed: [], failed: [dead.jobId] });
    const job = await queue.getJob(dead.jobId);
    expect({ state: await job?.getState(), reason: job?.failedReason }).toEqual({
      state: 'failed',
      reason: 'worker died during 1 runs',
    });
  }, 120_000);

  it('leaves a job whose worker has no name to the stalled check', async () => {
    start();
    const job = await queue.add('hold-job', { label: 'unnamed' });
    // What an unnamed worker leaves behind: active with a lock, and no `pb` field.
    await connection
      .multi()
      .lrem(`${prefix}:${QUEUE}:wait`, 1, String(job.id))
      .lpush(`${prefix}:${QUEUE}:active`, String(job.id))
      .set(`${prefix}:${QUEUE}:${String(job.id)}:lock`, 'gone-worker:0')
      .exec();

    const result = await reclaimOrphanedJobs(QUEUE, { connection, prefix, logger: memory.logger });

    expect(result).toEqual({ reclaimed: [], failed: [] });
    expect(await queue.getJobState(String(job.id))).toBe('active');
  }, 30_000);
});
