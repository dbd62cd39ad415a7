import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, uniquePrefix, type RedisFixture } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { createRedisConnection } from './connection';
import { defineLuaScripts, luaScript } from './lua-script';

const incrementBy = luaScript<number>(
  'sandboxTestIncrementBy',
  1,
  "return redis.call('INCRBY', KEYS[1], ARGV[1])",
);

describe('luaScript on a real Redis', () => {
  const prefix = uniquePrefix('lua-script');
  let server: RedisFixture;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
    redis = createRedisConnection(server.url, 'worker');
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await server.stop();
  });

  it('runs the script, again after the script cache is flushed', async () => {
    expect(await incrementBy.run(redis, [`${prefix}:n`], [2])).toBe(2);
    await redis.script('FLUSH');
    expect(await incrementBy.run(redis, [`${prefix}:n`], [3])).toBe(5);
  });

  it('queues on pipelines of a connection it is defined on', async () => {
    defineLuaScripts(redis, [incrementBy]);
    const pipeline = redis.pipeline();
    incrementBy.queue(pipeline, [`${prefix}:p`], [1]);
    incrementBy.queue(pipeline, [`${prefix}:p`], [10]);
    expect(await pipeline.exec()).toEqual([
      [null, 1],
      [null, 11],
    ]);
  });

  it('refuses a wrong number of keys and a pipeline of a connection without the script', () => {
    expect(() => incrementBy.queue(redis.pipeline(), [], [1])).toThrow('takes 1 keys');
    const other = redis.duplicate();
    try {
      expect(() => incrementBy.queue(other.pipeline(), ['k'], [1])).toThrow('not defined');
    } finally {
      other.disconnect();
    }
  });
});
