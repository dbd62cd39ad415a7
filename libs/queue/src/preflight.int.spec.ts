import { afterAll, describe, expect, it } from '@jest/globals';
import { startRedis, type RedisFixture, type StartRedisOptions } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { createRedisConnection } from './connection';
import { RedisPreflightError } from './errors';
import { preflightRedis } from './preflight';

describe('preflightRedis on real servers', () => {
  const servers: RedisFixture[] = [];
  const connections: Redis[] = [];

  // A fresh producer connection, not yet ready: the preflight must wait for it.
  const connect = async (options: StartRedisOptions): Promise<Redis> => {
    const server = await startRedis(options);
    servers.push(server);
    const connection = createRedisConnection(server.url, 'producer');
    connections.push(connection);
    return connection;
  };

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.quit()));
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('accepts the default fixture (AOF on, noeviction) and reports what it saw', async () => {
    const settings = await preflightRedis(await connect({}));
    expect(settings).toMatchObject({
      maxmemoryPolicy: 'noeviction',
      appendonly: 'yes',
      appendfsync: 'always',
    });
    expect(settings.redisVersion).toMatch(/^\d+\.\d+/);
  });

  it('refuses allkeys-lru, naming the setting and the fix', async () => {
    const failure = preflightRedis(await connect({ maxmemoryPolicy: 'allkeys-lru' }));
    await expect(failure).rejects.toBeInstanceOf(RedisPreflightError);
    await expect(failure).rejects.toMatchObject({
      problems: [
        expect.stringMatching(/maxmemory-policy is 'allkeys-lru'.*CONFIG SET maxmemory-policy noeviction/),
      ],
    });
  });

  it('refuses AOF off, naming the setting and the fix', async () => {
    const failure = preflightRedis(await connect({ appendonly: false }));
    await expect(failure).rejects.toThrow(/appendonly 'no'.*appendonly yes/);
  });

  it('lists both problems at once', async () => {
    const failure = preflightRedis(await connect({ appendonly: false, maxmemoryPolicy: 'volatile-lru' }));
    await expect(failure).rejects.toMatchObject({ problems: [expect.any(String), expect.any(String)] });
  });
});
