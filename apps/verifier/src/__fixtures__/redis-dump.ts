import type { Redis } from 'ioredis';

/** Every key and value in Redis as one text, for "never stored" assertions. */
export async function dumpRedis(redis: Redis): Promise<string> {
  const parts: string[] = [];
  for (const key of await redis.keys('*')) {
    const type = await redis.type(key);
    parts.push(key);
    if (type === 'string') parts.push((await redis.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
    else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES')));
    else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
  }
  return parts.join('\n');
}
