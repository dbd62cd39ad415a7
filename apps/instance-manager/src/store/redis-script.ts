import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script run with EVALSHA, loaded on first use (and again after a Redis restart or flush). */
export interface RedisScript {
  run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

export function redisScript(lua: string): RedisScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return redis.eval(lua, keys.length, ...keys, ...args);
      }
    },
  };
}
