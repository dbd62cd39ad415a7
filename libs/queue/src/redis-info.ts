import type { Redis } from 'ioredis';

/** The subset of a Redis client that the checks here use (ioredis `Redis` fits). */
export interface RedisCommandClient {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** One setting via `CONFIG GET name` (reply `[name, value]`); undefined when the server has none. */
export async function configGet(redis: RedisCommandClient, name: string): Promise<string | undefined> {
  const reply = await redis.call('CONFIG', 'GET', name);
  if (!Array.isArray(reply)) return undefined;
  const value: unknown = reply[1];
  return typeof value === 'string' ? value : undefined;
}

/** `redis_version` from `INFO server`, or 'unknown'. */
export async function serverVersion(redis: RedisCommandClient): Promise<string> {
  const info = await redis.call('INFO', 'server');
  const match = typeof info === 'string' ? /^redis_version:(\S+)/m.exec(info) : null;
  return match?.[1] ?? 'unknown';
}

/** True when version `a.b.c` is at least `major.minor`. */
export function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [maj = 0, min = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return maj > major || (maj === major && min >= minor);
}

/** Whether the server knows WAITAOF (Redis >= 7.2), by `COMMAND INFO`, else by version. */
export async function supportsWaitaof(redis: RedisCommandClient): Promise<boolean> {
  try {
    const reply = await redis.call('COMMAND', 'INFO', 'WAITAOF');
    return Array.isArray(reply) && reply[0] !== null && reply[0] !== undefined;
  } catch {
    return versionAtLeast(await serverVersion(redis), 7, 2);
  }
}

/**
 * Resolves once the connection is ready; rejects after `timeoutMs`. A fail-fast (producer)
 * connection refuses commands until then, so checks wait for this first.
 */
export function waitUntilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end') return Promise.reject(new Error('the Redis connection is closed'));
  return new Promise((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    redis.once('ready', onReady);
  });
}

/**
 * For a fail-fast connection: true when it is ready, or becomes ready within `timeoutMs` while a
 * connection attempt is in flight (`connecting`/`connect`, e.g. just after creation). False at once
 * when it is between attempts or closed, and as soon as an in-flight attempt fails.
 */
export function readyOrConnecting(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  if (redis.status !== 'connecting' && redis.status !== 'connect') return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (ready: boolean): void => {
      clearTimeout(timer);
      redis.off('ready', onReady).off('close', onClose).off('end', onClose);
      resolve(ready);
    };
    const onReady = (): void => finish(true);
    const onClose = (): void => finish(false);
    const timer = setTimeout(onClose, timeoutMs);
    redis.once('ready', onReady).once('close', onClose).once('end', onClose);
  });
}
