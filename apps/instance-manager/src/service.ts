import { preflightRedis, openRedisPair } from '@sandbox/queue';
import type { ServiceContext, ServiceWiring } from '@sandbox/service-kit';
import { systemClock } from '@sandbox/service-kit';
import type { InstanceManagerConfig } from './config';
import { createDriver } from './drivers/create-driver';
import { createInstanceManager } from './manager';
import type { ManagerSettings } from './manager';

/** The manager's settings, from its configuration. */
export function managerSettings(config: InstanceManagerConfig): ManagerSettings {
  return {
    keyPrefix: config.KEY_PREFIX,
    queuePrefix: config.QUEUE_PREFIX,
    readyTimeoutMs: config.READY_TIMEOUT_MS,
    probeIntervalMs: config.READY_PROBE_INTERVAL_MS,
    withdrawTimeoutMs: config.WITHDRAW_TIMEOUT_MS,
    withdrawGraceMs: config.WITHDRAW_GRACE_MS,
    resyncIntervalMs: config.RESYNC_INTERVAL_MS,
    goneRetentionMs: config.GONE_RETENTION_MS,
    startConcurrency: config.START_CONCURRENCY,
  };
}

/**
 * Builds the instance-manager for `startService`: Redis (preflight refuses eviction or AOF off), the
 * runtime driver, the manager. The recovery pass runs once the port is open (it can take a while with
 * many instances), and readiness waits for it.
 */
export async function composeInstanceManager({
  config,
  runtime,
  access,
}: ServiceContext<InstanceManagerConfig>): Promise<ServiceWiring> {
  const { logger } = runtime;
  const redis = openRedisPair(config.REDIS_URL, runtime);
  logger.info(await preflightRedis(redis.worker), 'redis preflight passed');
  const driver = await createDriver(config, logger, systemClock, runtime.metrics.registry);
  const manager = createInstanceManager({
    ...runtime,
    access,
    producerRedis: redis.producer,
    workerRedis: redis.worker,
    driver,
    clock: systemClock,
    settings: managerSettings(config),
  });
  runtime.shutdown.register('workers', 'instance-manager', () => manager.stop());
  runtime.health.addReadinessCheck('recovered', () => manager.ready());
  return {
    app: manager.app,
    afterListen: [{ name: 'recovery', run: () => manager.start() }],
    readyFields: () => ({ driver: driver.name, port: config.PORT }),
  };
}
