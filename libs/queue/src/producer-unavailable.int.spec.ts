import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineQueue } from '@sandbox/protocol';
import {
  createMemoryLogger,
  findFreePort,
  startRedis,
  uniquePrefix,
  type RedisFixture,
} from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createRedisConnection } from './connection';
import { QueueUnavailableError } from './errors';
import { createProducer } from './producer';
import { mapError } from '@sandbox/service-kit';

const pings = defineQueue('test-pings', { 'send-ping': z.strictObject({ n: z.number() }) });

// Each case has a 5 s budget: a producer that waited for Redis instead of failing fast would time out.
describe('producer without Redis', () => {
  const { logger } = createMemoryLogger();
  // ioredis arms a timer (2 s by default) when disconnecting a socket that already died; keep it short.
  const overrides = { disconnectTimeout: 50 };
  let redis: RedisFixture;
  const connections: Redis[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    connections.forEach((connection) => connection.disconnect());
    await redis.stop();
  });

  it('answers QueueUnavailableError once the Redis it was using has stopped', async () => {
    const connection = createRedisConnection(redis.url, 'producer', { logger, overrides });
    connections.push(connection);
    const producer = createProducer(pings, { connection, prefix: uniquePrefix('unavailable'), logger });
    await expect(producer.add('send-ping', { n: 1 })).resolves.toMatchObject({ name: 'send-ping' });
    await producer.queue.obliterate({ force: true });

    await redis.stop();
    const failure = await producer.add('send-ping', { n: 2 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueueUnavailableError);
    expect(failure).toMatchObject({ code: 'unavailable', message: 'queue test-pings is unavailable' });
    expect(mapError(failure).status).toBe(503);
    await producer.close();
  }, 5_000);

  it('answers QueueUnavailableError when Redis was never reachable', async () => {
    const url = `redis://127.0.0.1:${await findFreePort()}`;
    const connection = createRedisConnection(url, 'producer', { logger, overrides });
    connections.push(connection);
    const producer = createProducer(pings, { connection, prefix: uniquePrefix('never'), logger });
    await expect(producer.add('send-ping', { n: 1 })).rejects.toBeInstanceOf(QueueUnavailableError);
    await producer.close();
  }, 5_000);
});
