import type { Redis } from 'ioredis';
import { RedisPreflightError } from './errors';
import { configGet, serverVersion, waitUntilReady } from './redis-info';

/** What the preflight saw, for the start-up log line. */
export interface RedisSettings {
  redisVersion: string;
  maxmemoryPolicy: string;
  appendonly: string;
  appendfsync: string;
}

/** Options of {@link preflightRedis}. */
export interface PreflightOptions {
  /** How long to wait for the connection to become ready. @defaultValue 10000 */
  readyTimeoutMs?: number;
}

/**
 * Refuses (throws {@link RedisPreflightError}, naming each setting and its fix) unless Redis keeps
 * jobs safe: `maxmemory-policy noeviction` (any eviction silently deletes queue keys) and AOF on
 * (`appendonly yes`; otherwise a restart loses every job). Run it at start-up before opening ports.
 */
export async function preflightRedis(redis: Redis, options: PreflightOptions = {}): Promise<RedisSettings> {
  const settings = await readSettings(redis, options.readyTimeoutMs ?? 10_000);
  const problems: string[] = [];
  if (settings.maxmemoryPolicy !== 'noeviction') {
    problems.push(
      `maxmemory-policy is '${settings.maxmemoryPolicy}', but BullMQ needs 'noeviction' (eviction deletes ` +
        `queue keys). Fix: set "maxmemory-policy noeviction" in redis.conf, or run ` +
        `CONFIG SET maxmemory-policy noeviction.`,
    );
  }
  if (settings.appendonly !== 'yes') {
    problems.push(
      `AOF persistence is off (appendonly '${settings.appendonly}'), so a Redis restart loses jobs. ` +
        `Fix: set "appendonly yes" in redis.conf, or run CONFIG SET appendonly yes.`,
    );
  }
  if (problems.length > 0) throw new RedisPreflightError(problems);
  return settings;
}

async function readSettings(redis: Redis, readyTimeoutMs: number): Promise<RedisSettings> {
  try {
    await waitUntilReady(redis, readyTimeoutMs);
  } catch (cause) {
    throw new RedisPreflightError([`cannot reach Redis: ${(cause as Error).message}.`], { cause });
  }
  try {
    const [maxmemoryPolicy, appendonly, appendfsync, redisVersion] = await Promise.all([
      configGet(redis, 'maxmemory-policy'),
      configGet(redis, 'appendonly'),
      configGet(redis, 'appendfsync'),
      serverVersion(redis),
    ]);
    return {
      redisVersion,
      maxmemoryPolicy: maxmemoryPolicy ?? 'unknown',
      appendonly: appendonly ?? 'unknown',
      appendfsync: appendfsync ?? 'unknown',
    };
  } catch (cause) {
    throw new RedisPreflightError(
      [
        `cannot read the Redis configuration (${(cause as Error).message}). The preflight needs CONFIG GET ` +
          `and INFO; allow them for this user, or check the settings by hand.`,
      ],
      { cause },
    );
  }
}
