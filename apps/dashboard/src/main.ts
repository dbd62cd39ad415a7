import { createRedisConnection } from '@sandbox/queue';
import { createServiceRuntime, installSignalHandlers, loadConfig, serveHttp } from '@sandbox/service-kit';
import { createApp } from './app';
import { DashboardConfigSchema, processEnv } from './config';
import { openProtocolQueues } from './queues';

const config = loadConfig(DashboardConfigSchema, processEnv());
const runtime = createServiceRuntime({
  svc: 'dashboard',
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);

const redis = createRedisConnection(config.REDIS_URL, 'producer', { logger: runtime.logger });
const queues = openProtocolQueues(redis, config.QUEUE_PREFIX, runtime.logger);
runtime.shutdown.register('queues', 'protocol-queues', () =>
  Promise.all(queues.map((queue) => queue.close())),
);
runtime.shutdown.register('redis', 'redis', () => redis.quit());
runtime.health.addReadinessCheck('redis', () => redis.ping().then((reply) => reply === 'PONG'), {
  timeoutMs: 1_000,
});

const app = createApp({ ...runtime, queues, writable: config.DASHBOARD_WRITABLE });
await serveHttp(runtime, app, { port: config.PORT, host: config.HOST });
runtime.health.markReady();
runtime.logger.info({ port: config.PORT, writable: config.DASHBOARD_WRITABLE }, 'dashboard listening');
