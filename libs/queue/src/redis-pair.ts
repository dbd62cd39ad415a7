import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createRedisConnection } from './connection';

/** The two connections a service opens: fail-fast for HTTP handlers and producers, patient for workers. */
export interface RedisPair {
  readonly producer: Redis;
  readonly worker: Redis;
}

/** The parts of a service runtime {@link openRedisPair} uses (service-kit's runtime fits). */
export interface RedisPairDeps {
  logger: Logger;
  shutdown: { register(phase: 'redis', name: string, hook: () => unknown): void };
  health?: {
    addReadinessCheck(name: string, check: () => Promise<boolean>, options?: { timeoutMs?: number }): void;
  };
}

/**
 * Opens a service's `producer` and `worker` connections and registers their `quit` in the `redis`
 * shutdown phase at once, so they are closed even when a later start-up step fails. With `health`,
 * adds the `redis` readiness check (a ping on `pingOn`, within a second).
 */
export function openRedisPair(
  url: string,
  deps: RedisPairDeps,
  options: { pingOn?: keyof RedisPair } = {},
): RedisPair {
  const pair: RedisPair = {
    producer: createRedisConnection(url, 'producer', { logger: deps.logger }),
    worker: createRedisConnection(url, 'worker', { logger: deps.logger }),
  };
  deps.shutdown.register('redis', 'redis', () => Promise.all([pair.producer.quit(), pair.worker.quit()]));
  const pinged = pair[options.pingOn ?? 'worker'];
  deps.health?.addReadinessCheck('redis', async () => (await pinged.ping()) === 'PONG', { timeoutMs: 1_000 });
  return pair;
}
