import { afterAll, describe, expect, it } from '@jest/globals';
import { startRedis, waitFor, type RedisFixture, type StartRedisOptions } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { createRedisConnection } from './connection';
import { createDurableWriter } from './durable-write';
import { DurabilityUnavailableError } from './errors';
import { preflightRedis } from './preflight';

describe('durable writes on a real Redis 7.0 (no WAITAOF)', () => {
  const servers: RedisFixture[] = [];
  const connections: Redis[] = [];

  const start = async (options: StartRedisOptions): Promise<{ server: RedisFixture; redis: Redis }> => {
    const server = await startRedis(options);
    servers.push(server);
    const redis = createRedisConnection(server.url, 'worker');
    connections.push(redis);
    await preflightRedis(redis);
    return { server, redis };
  };

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.quit()));
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('refuses with appendfsync everysec, saying what to set, and writes nothing', async () => {
    const { redis } = await start({ appendfsync: 'everysec' });
    const writer = createDurableWriter(redis);
    const failure = writer.write((r) => r.set('never', 'written'));
    await expect(failure).rejects.toBeInstanceOf(DurabilityUnavailableError);
    await expect(failure).rejects.toThrow(/no WAITAOF.*"appendfsync always".*'everysec'/s);
    expect(await redis.exists('never')).toBe(0);
  });

  it('with appendfsync always, every write that returned survives kill -9 and restart', async () => {
    const { server, redis } = await start({ appendfsync: 'always' });
    const writer = createDurableWriter(redis);
    expect(await writer.check()).toBe('fsync-always');
    const written: string[] = [];
    for (let index = 0; index < 50; index += 1) {
      await writer.write((r) => r.multi().set(`ticket:${index}`, `v${index}`).rpush('tickets', index).exec());
      written.push(`v${index}`);
    }
    await server.kill9();
    await server.restart();
    const after = createRedisConnection(server.url, 'worker');
    connections.push(after);
    const keys = written.map((_, index) => `ticket:${index}`);
    expect(await after.mget(keys)).toEqual(written);
    expect(await after.llen('tickets')).toBe(50);
    // The writer's worker connection retries forever, so it comes back on its own.
    await waitFor(() => redis.status === 'ready', { description: 'the writer connection to reconnect' });
    expect(await redis.get('ticket:0')).toBe('v0');
  });
});
