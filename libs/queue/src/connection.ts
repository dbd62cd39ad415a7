import { backoffDelay } from '@sandbox/service-kit';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * How a connection is used. `producer`: an HTTP handler adds jobs and must fail fast so it can answer
 * 503. `worker`: a BullMQ worker, whose commands must wait out a Redis restart.
 */
export type RedisRole = 'producer' | 'worker';

/** Options of {@link createRedisConnection}. */
export interface RedisConnectionOptions {
  /** Receives connection errors (each failed reconnect). Without it they are dropped. */
  logger?: Logger;
  /** TCP connect timeout. @defaultValue 5000 */
  connectTimeoutMs?: number;
  /** Extra ioredis options, applied last (e.g. `connectionName`). */
  overrides?: RedisOptions;
}

// Reconnect forever in the background with a capped delay; producers still fail fast because
// their offline queue is off, so a command while disconnected is refused at once.
const producerRetryDelay = (times: number): number => Math.min(times * 100, 2_000);
const workerRetryDelay = (times: number): number =>
  backoffDelay(times + 1, { initialMs: 50, maxMs: 10_000, jitter: 'none' });

function roleOptions(role: RedisRole, connectTimeout: number): RedisOptions {
  if (role === 'producer') {
    return {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout,
      retryStrategy: producerRetryDelay,
    };
  }
  return { maxRetriesPerRequest: null, connectTimeout, retryStrategy: workerRetryDelay };
}

/**
 * An ioredis connection configured for its role (STYLE 8): producers with
 * `enableOfflineQueue: false`, workers with `maxRetriesPerRequest: null`. An `'error'` listener is
 * always attached. The URL is never logged (it may hold a password). Close it with `quit()`.
 */
export function createRedisConnection(
  url: string,
  role: RedisRole,
  options: RedisConnectionOptions = {},
): Redis {
  const redis = new Redis(url, {
    ...roleOptions(role, options.connectTimeoutMs ?? 5_000),
    ...options.overrides,
  });
  const logger = options.logger?.child({ redisRole: role });
  redis.on('error', (err: Error) => logger?.warn({ err }, 'redis connection error'));
  return redis;
}

const UNAVAILABLE_MESSAGES = [
  'enableOfflineQueue',
  'Connection is closed',
  "Stream isn't writeable",
  'Reached the max retries per request limit',
  'Command timed out',
];
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);
// Server replies meaning "not now" rather than "wrong request".
const UNAVAILABLE_REPLIES = /^(LOADING|OOM|MISCONF|READONLY|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/** True when an error from a Redis command means Redis is unreachable or temporarily refusing. */
export function isRedisUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (UNAVAILABLE_REPLIES.test(error.message)) return true;
  return UNAVAILABLE_MESSAGES.some((text) => error.message.includes(text));
}
