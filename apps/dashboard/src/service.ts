import { createRedisConnection } from '@sandbox/queue';
import type { ServiceContext, ServiceWiring } from '@sandbox/service-kit';
import { createApp } from './app';
import type { DashboardConfig } from './config';
import { openProtocolQueues } from './queues';

/** Builds the dashboard for `startService`: one producer connection, every protocol queue, the board. */
export function composeDashboard({
  config,
  runtime,
  access,
}: ServiceContext<DashboardConfig>): ServiceWiring {
  const redis = createRedisConnection(config.REDIS_URL, 'producer', { logger: runtime.logger });
  runtime.shutdown.register('redis', 'redis', () => redis.quit());
  const queues = openProtocolQueues(redis, config.QUEUE_PREFIX, runtime.logger);
  runtime.shutdown.register('queues', 'protocol-queues', () =>
    Promise.all(queues.map((queue) => queue.close())),
  );
  runtime.health.addReadinessCheck('redis', () => redis.ping().then((reply) => reply === 'PONG'), {
    timeoutMs: 1_000,
  });
  return {
    app: createApp({ ...runtime, access, queues, writable: config.DASHBOARD_WRITABLE }),
    readyFields: () => ({ port: config.PORT, writable: config.DASHBOARD_WRITABLE }),
  };
}
