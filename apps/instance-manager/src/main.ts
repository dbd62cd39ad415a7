import { createRedisConnection, preflightRedis } from '@sandbox/queue';
import { createServiceRuntime, installSignalHandlers, loadConfig, serveHttp } from '@sandbox/service-kit';
import { systemClock } from './clock';
import { InstanceManagerConfigSchema, processEnv } from './config';
import { createDriver } from './drivers/create-driver';
import { createInstanceManager } from './manager';

const config = loadConfig(InstanceManagerConfigSchema, processEnv());
const runtime = createServiceRuntime({
  svc: 'instance-manager',
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);
const { logger } = runtime;

const producerRedis = createRedisConnection(config.REDIS_URL, 'producer', { logger });
const workerRedis = createRedisConnection(config.REDIS_URL, 'worker', { logger });
runtime.shutdown.register('redis', 'redis', () => Promise.all([producerRedis.quit(), workerRedis.quit()]));
try {
  logger.info(await preflightRedis(workerRedis), 'redis preflight passed');
} catch (error) {
  logger.fatal({ err: error }, 'redis preflight failed');
  await runtime.shutdown.run('redis preflight failed', 1);
}

const driver = await createDriver(config, logger, systemClock, runtime.metrics.registry);
const manager = createInstanceManager({
  ...runtime,
  producerRedis,
  workerRedis,
  driver,
  clock: systemClock,
  settings: {
    keyPrefix: config.KEY_PREFIX,
    queuePrefix: config.QUEUE_PREFIX,
    readyTimeoutMs: config.READY_TIMEOUT_MS,
    probeIntervalMs: config.READY_PROBE_INTERVAL_MS,
    withdrawTimeoutMs: config.WITHDRAW_TIMEOUT_MS,
    withdrawGraceMs: config.WITHDRAW_GRACE_MS,
    resyncIntervalMs: config.RESYNC_INTERVAL_MS,
    goneRetentionMs: config.GONE_RETENTION_MS,
    startConcurrency: config.START_CONCURRENCY,
  },
});
runtime.shutdown.register('workers', 'instance-manager', () => manager.stop());
runtime.health.addReadinessCheck('redis', () => workerRedis.ping().then((reply) => reply === 'PONG'), {
  timeoutMs: 1_000,
});
runtime.health.addReadinessCheck('recovered', () => manager.ready());

await serveHttp(runtime, manager.app, { port: config.PORT, host: config.HOST });
await manager.start();
runtime.health.markReady();
logger.info({ driver: driver.name, port: config.PORT }, 'instance-manager ready');
