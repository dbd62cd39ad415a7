import {
  createDurableWriter,
  createRedisConnection,
  preflightRedis,
  type DurableWriter,
} from '@sandbox/queue';
import type { ServiceRuntime } from '@sandbox/service-kit';
import type { Redis } from 'ioredis';
import type { HandoffConfig } from '../config';
import { createDurabilityMonitor, type DurabilityMonitor } from './durability-monitor';

/** The service's Redis side. */
export interface RedisParts {
  readonly producerRedis: Redis;
  readonly workerRedis: Redis;
  readonly durable: DurableWriter<Redis>;
  readonly monitor: DurabilityMonitor;
}

/** Connections (fail-fast for intake and the API, patient for the worker), preflight and durability. */
export async function openRedis(
  config: HandoffConfig,
  { logger, shutdown }: ServiceRuntime,
): Promise<RedisParts> {
  const producerRedis = createRedisConnection(config.REDIS_URL, 'producer', { logger });
  const workerRedis = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  shutdown.register('redis', 'redis', () => Promise.all([producerRedis.quit(), workerRedis.quit()]));
  const settings = await preflightRedis(producerRedis, { readyTimeoutMs: config.REDIS_STARTUP_TIMEOUT_MS });
  logger.info(settings, 'redis preflight passed');
  // The store and the delivery queue share this connection, so one durable write covers both.
  const durable = createDurableWriter(producerRedis);
  logger.info({ mode: await durable.check() }, 'redis confirms durable writes');
  const monitor = createDurabilityMonitor({
    redis: producerRedis,
    logger,
    intervalMs: config.DURABILITY_CHECK_MS,
  });
  await monitor.check();
  monitor.start();
  shutdown.register('workers', 'durability-monitor', () => monitor.stop());
  return { producerRedis, workerRedis, durable, monitor };
}
