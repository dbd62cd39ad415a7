import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { parentEnv } from './config';
import { ping } from './redis-process';
import { startRedis, type RedisFixture } from './redis-server';
import { startTsProcess } from './ts-process';
import { waitFor } from './wait-for';

const REDIS_PARENT = fileURLToPath(new URL('./__fixtures__/redis-parent.ts', import.meta.url));

async function withClient<T>(url: string, run: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    return await run(redis);
  } finally {
    redis.disconnect();
  }
}

async function configValue(client: Redis, name: string): Promise<unknown> {
  return ((await client.config('GET', name)) as string[])[1];
}

describe('startRedis', () => {
  let redis: RedisFixture;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('serves on loopback with AOF always, noeviction and no RDB saves', async () => {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    const config = await withClient(redis.url, (client) =>
      Promise.all(
        ['appendonly', 'appendfsync', 'maxmemory-policy', 'save', 'bind', 'dir'].map((name) =>
          configValue(client, name),
        ),
      ),
    );
    expect(config).toEqual(['yes', 'always', 'noeviction', '', '127.0.0.1', redis.dir]);
  });

  it('keeps data across kill9 and restart, on the same port', async () => {
    await withClient(redis.url, (client) => client.set('survivor', 'yes'));
    await redis.kill9();
    expect(await ping(redis.port)).toBe(false);
    await redis.restart();
    expect(await withClient(redis.url, (client) => client.get('survivor'))).toBe('yes');
  });
});

describe('startRedis options and stop', () => {
  it('applies overrides, and stop() ends the server and removes its directory', async () => {
    const redis = await startRedis({
      appendonly: false,
      appendfsync: 'everysec',
      maxmemoryPolicy: 'allkeys-lru',
    });
    try {
      const config = await withClient(redis.url, async (client) => [
        await configValue(client, 'appendonly'),
        await configValue(client, 'appendfsync'),
        await configValue(client, 'maxmemory-policy'),
      ]);
      expect(config).toEqual(['no', 'everysec', 'allkeys-lru']);
    } finally {
      await redis.stop();
    }
    expect(await ping(redis.port)).toBe(false);
    expect(existsSync(redis.dir)).toBe(false);
    await redis.stop();
  });

  it('fails with the server output when redis-server refuses its configuration', async () => {
    await expect(startRedis({ maxmemoryPolicy: 'not-a-policy' })).rejects.toThrow(/exited during start-up/);
  });
});

describe('a fixture server whose owner dies', () => {
  it('is killed, and its directory removed, when the owning process is SIGKILLed', async () => {
    const owner = startTsProcess(REDIS_PARENT, [], { env: parentEnv() });
    try {
      const [port, dir] = (await owner.waitForLine((line) => /^\d+ \//u.test(line), 30_000)).split(' ');
      expect(await ping(Number(port))).toBe(true);
      expect(existsSync(dir as string)).toBe(true);
      // The owner alone, as a killed test runner: nothing of its own clean-up runs.
      owner.signal('SIGKILL');
      await waitFor(async () => !(await ping(Number(port))) && !existsSync(dir as string), {
        description: 'the guard to kill redis-server and remove its directory',
        timeoutMs: 10_000,
        intervalMs: 50,
      });
    } finally {
      await owner.kill();
    }
  }, 60_000);
});
