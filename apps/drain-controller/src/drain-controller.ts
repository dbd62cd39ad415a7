import type { Server } from 'node:http';
import { ADAPTER_COMMANDS_QUEUE, DRAIN_STEPS_QUEUE } from '@sandbox/protocol';
import { createProducer, createRedisConnection, preflightRedis } from '@sandbox/queue';
import { serveHttp, type ServiceRuntime } from '@sandbox/service-kit';
import { createApp } from './app';
import type { DrainConfig } from './config';
import type { OrchestratorDriver } from './drivers/orchestrator-driver';
import { createAdapterCommands } from './jobs/adapter-commands';
import { createDrainStepsWorker } from './jobs/drain-steps.worker';
import { adapterSessionsSource, type SessionsSource } from './jobs/sessions-source';
import { createStepScheduler } from './jobs/step-scheduler';
import { createDrains, type Drains } from './machine/drains';
import { createDrainMetrics } from './ops/drain-metrics';
import { createDrainStore, type DrainStore } from './store/drain-store';

/** What the composition needs besides configuration: everything impure comes in here. */
export interface DrainControllerDeps {
  config: DrainConfig;
  runtime: ServiceRuntime;
  driver: OrchestratorDriver;
  /** @defaultValue `Date.now` */
  now?: () => number;
  /** @defaultValue the adapter's `GET /v1/runners` */
  sessions?: SessionsSource;
}

/** The running service. */
export interface DrainController {
  readonly server: Server;
  readonly drains: Drains;
  readonly store: DrainStore;
}

/**
 * Wires and starts the drain-controller: Redis preflight, the store, the step queue and worker, the
 * re-arming of the active drain (its step and its deadline, from the stored record), then the API.
 * Everything is registered with the runtime's shutdown; readiness follows Redis.
 */
export async function startDrainController(deps: DrainControllerDeps): Promise<DrainController> {
  const { config, runtime } = deps;
  const { logger, shutdown } = runtime;
  const now = deps.now ?? Date.now;
  const producerRedis = createRedisConnection(config.REDIS_URL, 'producer', { logger });
  const workerRedis = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  shutdown.register('redis', 'redis', () => Promise.all([producerRedis.quit(), workerRedis.quit()]));
  logger.info(
    await preflightRedis(producerRedis, { readyTimeoutMs: config.REDIS_STARTUP_TIMEOUT_MS }),
    'redis preflight passed',
  );
  const queueDeps = { connection: producerRedis, prefix: config.QUEUE_PREFIX, logger };
  const steps = createProducer(DRAIN_STEPS_QUEUE, queueDeps);
  const adapterCommands = createProducer(ADAPTER_COMMANDS_QUEUE, queueDeps);
  shutdown.register('queues', 'producers', () => Promise.all([steps.close(), adapterCommands.close()]));

  const store = createDrainStore(producerRedis, config.KEY_PREFIX);
  const current = async () => {
    const active = await store.activeId();
    return active === undefined ? (await store.list(1))[0] : (await store.get(active))?.record;
  };
  const metrics = createDrainMetrics({ registry: runtime.metrics.registry, current, now });
  const schedule = createStepScheduler({ producer: steps, now });
  const drains = createDrains({ store, logger, now, onChange: schedule, onPhase: metrics.onPhase });

  const active = await store.activeId();
  const record = active === undefined ? undefined : await drains.get(active);
  if (record !== undefined) {
    await schedule(record);
    logger.info(
      { drainId: record.id, phase: record.phase, deadline: record.deadline },
      'drain resumed after start-up',
    );
  }

  const worker = createDrainStepsWorker(
    {
      drains,
      commands: createAdapterCommands({ producer: adapterCommands, now }),
      sessions: deps.sessions ?? adapterSessionsSource({ adapterUrl: config.ADAPTER_URL, now }),
      driver: deps.driver,
      logger,
      now,
      pollMs: config.POLL_MS,
      nodeReadyTimeoutMs: config.NODE_READY_TIMEOUT_MS,
    },
    {
      connection: workerRedis,
      prefix: config.QUEUE_PREFIX,
      logger,
      concurrency: 4,
      tuning: {
        lockDuration: config.STEP_LOCK_MS,
        stalledInterval: config.STEP_STALLED_INTERVAL_MS,
        // A step interrupted by crashes is taken over, never failed for it: every step is idempotent.
        maxStalledCount: 1_000_000,
      },
    },
  );
  shutdown.register('workers', 'drain-steps', () => worker.close());

  const defaults = { windowMs: config.DEFAULT_WINDOW, quietPeriodMs: config.DEFAULT_QUIET_PERIOD };
  const app = createApp({ ...runtime, drains, store, defaults });
  const server = await serveHttp(runtime, app, { port: config.PORT, host: config.HOST });
  runtime.health.addReadinessCheck('redis', () => producerRedis.ping().then((reply) => reply === 'PONG'), {
    timeoutMs: 1_000,
  });
  runtime.health.markReady();
  return { server, drains, store };
}
