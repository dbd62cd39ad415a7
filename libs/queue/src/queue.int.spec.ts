import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { defineQueue } from '@sandbox/protocol';
import { createMemoryLogger, startRedis, uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createRedisConnection } from './connection';
import { DEFAULT_JOB_OPTIONS } from './defaults';
import { JobDataError } from './errors';
import { createProducer, type Producer } from './producer';
import { createWorker, type TypedWorker } from './worker';

const CANARY = 'canary-b41d-never-in-output';

const greetings = defineQueue('test-greetings', {
  'send-greeting': z.strictObject({
    to: z.string().min(1),
    times: z.number().int().positive().default(1),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  'count-words': z.strictObject({ text: z.string() }),
});
type Greetings = typeof greetings;

describe('typed producer and worker on a real Redis', () => {
  const memory = createMemoryLogger();
  const seen: unknown[] = [];
  let redis: RedisFixture;
  let producerConnection: Redis;
  let workerConnection: Redis;
  let producer: Producer<Greetings>;
  let worker: TypedWorker | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    producerConnection = createRedisConnection(redis.url, 'producer', { logger: memory.logger });
    workerConnection = createRedisConnection(redis.url, 'worker', { logger: memory.logger });
  });

  const start = (): void => {
    const prefix = uniquePrefix('queue-int');
    producer = createProducer(greetings, { connection: producerConnection, prefix, logger: memory.logger });
    worker = createWorker(
      greetings,
      {
        'send-greeting': async (data) => {
          seen.push(data);
          return `hello ${data.to} x${data.times}`;
        },
        'count-words': async (data) => data.text.split(/\s+/).filter(Boolean).length,
      },
      { connection: workerConnection, prefix, logger: memory.logger, concurrency: 2 },
    );
  };

  const settled = async (id: string | undefined): Promise<Job> => {
    if (!id) throw new Error('job has no id');
    await waitFor(async () => ['completed', 'failed'].includes(await producer.queue.getJobState(id)), {
      description: `job ${id} to settle`,
    });
    const job = await producer.queue.getJob(id);
    if (!job) throw new Error(`job ${id} vanished`);
    return job;
  };

  afterEach(async () => {
    await worker?.close();
    await producer.queue.obliterate({ force: true });
    await producer.close();
    seen.length = 0;
  });

  afterAll(async () => {
    await Promise.all([producerConnection.quit(), workerConnection.quit()]);
    await redis.stop();
    expect(memory.text()).not.toContain(CANARY);
  });

  it('round-trips typed data, with schema defaults, to the handler and back', async () => {
    start();
    const job = await producer.add('send-greeting', { to: 'ada' }, { jobId: 'greet-ada' });
    const done = await settled(job.id);
    expect(await done.getState()).toBe('completed');
    expect(done.returnvalue).toBe('hello ada x1');
    expect(seen).toEqual([{ to: 'ada', times: 1 }]);
    expect(done.opts.attempts).toBe(DEFAULT_JOB_OPTIONS.attempts);
    const counted = await settled((await producer.add('count-words', { text: 'one two  three' })).id);
    expect(counted.returnvalue).toBe(3);
  });

  it('dedupes on a deterministic jobId', async () => {
    start();
    const first = await producer.add('count-words', { text: 'a' }, { jobId: 'words-1', delay: 60_000 });
    const second = await producer.add('count-words', { text: 'b' }, { jobId: 'words-1', delay: 60_000 });
    expect(second.id).toBe(first.id);
    expect(await producer.queue.getDelayedCount()).toBe(1);
    expect((await producer.queue.getJob('words-1'))?.data).toEqual({ text: 'a' });
  });

  it('fails a malformed job once, with its parse reason, and does not retry it', async () => {
    start();
    // Bypass the producer's parse, as an old producer or a hand-edited job would.
    const job = await producer.queue.add('send-greeting', { to: 42, times: CANARY });
    const failed = await settled(job.id);
    expect(await failed.getState()).toBe('failed');
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toMatch(/^malformed job data: /);
    expect(failed.failedReason).toContain('to: ');
    expect(failed.failedReason).toContain('times: ');
    expect(failed.failedReason).not.toContain(CANARY);
    expect(seen).toEqual([]);
  });

  it('fails a job with an unknown name as unrecoverable', async () => {
    start();
    const failed = await settled((await producer.queue.add('delete-everything', { text: 'x' })).id);
    expect(await failed.getState()).toBe('failed');
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toBe('unknown job name "delete-everything"');
  });

  it('refuses invalid data and secret field names before anything reaches Redis', async () => {
    start();
    await worker?.close();
    const invalid = producer.add('send-greeting', { to: '', times: -1 });
    await expect(invalid).rejects.toBeInstanceOf(JobDataError);
    await expect(invalid).rejects.toMatchObject({ issues: [{ path: 'to' }, { path: 'times' }] });

    const secret = await producer
      .add('send-greeting', { to: 'ada', headers: { Authorization: CANARY } })
      .catch((error: unknown) => error);
    expect(secret).toBeInstanceOf(JobDataError);
    expect((secret as JobDataError).issues).toEqual([
      { path: 'headers.Authorization', message: 'secret fields must never be put in job data' },
    ]);
    expect(`${String(secret)} ${JSON.stringify(secret)}`).not.toContain(CANARY);
    const counts = await producer.queue.getJobCounts();
    expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(0);
  });
});
