import { ADAPTER_COMMANDS_QUEUE, DRAIN_STEPS_QUEUE } from '@sandbox/protocol';
import { createLeaseElector, fencedCheckpoint, leaseSettings, type LeaseElector } from '@sandbox/lease';
import { createProducer, createRedisConnection, preflightRedis } from '@sandbox/queue';
import {
  systemClock,
  type ServiceContext,
  type ServiceRuntime,
  type ServiceWiring,
} from '@sandbox/service-kit';
import type { Redis } from 'ioredis';
import { createApp } from './app';
import type { DrainConfig } from './config';
import type { OrchestratorDriver } from './drivers/orchestrator-driver';
import { createAdapterCommands } from './jobs/adapter-commands';
import { createDrainStepsWorker } from './jobs/drain-steps.worker';
import { sessionsViewSource, type SessionsSource } from './jobs/sessions-view.reader';
import { createStepScheduler } from './jobs/step-scheduler';
import { createDrains, type Drains } from './machine/drains';
import { createDrainMetrics } from './ops/drain-metrics';
import { createDrainStore, type DrainStore } from './store/drain-store';

/** What the composition takes besides the context: everything impure comes in here. */
export interface DrainSeams {
  driver: OrchestratorDriver;
  /** @defaultValue `Date.now` */
  now?: () => number;
  /** @defaultValue the adapter's sessions view in Redis */
  sessions?: SessionsSource;
}

/** The parts specs look at. */
export interface DrainParts {
  readonly drains: Drains;
  readonly store: DrainStore;
}

/** The driver with each replacement preceded by a checkpoint through the lease's fence. */
function fenceReplacements(
  driver: OrchestratorDriver,
  lease: LeaseElector,
  now: () => number,
): OrchestratorDriver {
  return {
    kind: driver.kind,
    async replace(request) {
      await fencedCheckpoint(lease, 'replace', now);
      return driver.replace(request);
    },
    readiness: (request) => driver.readiness(request),
  };
}

function openRedis(config: DrainConfig, { logger, shutdown, health }: ServiceRuntime) {
  const producer: Redis = createRedisConnection(config.REDIS_URL, 'producer', { logger });
  const worker: Redis = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  shutdown.register('redis', 'redis', () => Promise.all([producer.quit(), worker.quit()]));
  health.addReadinessCheck('redis', () => producer.ping().then((reply) => reply === 'PONG'), {
    timeoutMs: 1_000,
  });
  return { producer, worker };
}

/**
 * Builds the drain-controller for `startService`: the store, the step queue, the worker and the API.
 * Before the port opens: the Redis preflight. Once this replica holds the lease: the re-arming of the
 * active drain (its step, and its deadline from the stored record), then the worker; every replacement
 * of Node first checks in through the lease's fence. Every part registers its shutdown.
 */
export function composeDrainController(
  { config, runtime, access }: ServiceContext<DrainConfig>,
  seams: DrainSeams,
  expose?: (parts: DrainParts) => void,
): ServiceWiring {
  const { logger, shutdown } = runtime;
  const now = seams.now ?? systemClock.now;
  const redis = openRedis(config, runtime);
  const queueDeps = { connection: redis.producer, prefix: config.QUEUE_PREFIX, logger };
  const steps = createProducer(DRAIN_STEPS_QUEUE, queueDeps);
  const adapterCommands = createProducer(ADAPTER_COMMANDS_QUEUE, queueDeps);
  shutdown.register('queues', 'producers', () => Promise.all([steps.close(), adapterCommands.close()]));

  const store = createDrainStore(redis.producer, config.KEY_PREFIX);
  const lease = createLeaseElector({
    redis: redis.producer,
    key: `${config.KEY_PREFIX}:lease`,
    ...leaseSettings(config),
    logger,
  });
  const current = async () => {
    const active = await store.activeId();
    return active === undefined ? (await store.list(1))[0] : (await store.get(active))?.record;
  };
  const metrics = createDrainMetrics({ registry: runtime.metrics.registry, current, now });
  const schedule = createStepScheduler({ producer: steps, now });
  const drains = createDrains({ store, logger, now, onChange: schedule, onPhase: metrics.onPhase });
  expose?.({ drains, store });

  const worker = createDrainStepsWorker(
    {
      drains,
      commands: createAdapterCommands({ producer: adapterCommands, now }),
      sessions:
        seams.sessions ??
        sessionsViewSource({
          redis: redis.producer,
          adapterStatePrefix: config.ADAPTER_STATE_PREFIX,
          maxAgeMs: config.SESSIONS_VIEW_MAX_AGE_MS,
        }),
      driver: fenceReplacements(seams.driver, lease, now),
      logger,
      now,
      pollMs: config.POLL_MS,
      nodeReadyTimeoutMs: config.NODE_READY_TIMEOUT_MS,
      adapterCommandTimeoutMs: config.ADAPTER_COMMAND_TIMEOUT_MS,
      resumeTimeoutMs: config.RESUME_TIMEOUT_MS,
    },
    {
      connection: redis.worker,
      prefix: config.QUEUE_PREFIX,
      logger,
      concurrency: 4,
      autorun: false,
      tuning: {
        lockDuration: config.STEP_LOCK_MS,
        stalledInterval: config.STEP_STALLED_INTERVAL_MS,
        // A step interrupted by crashes is taken over, never failed for it: every step is idempotent.
        maxStalledCount: 1_000_000,
      },
    },
  );

  const rearm = async () => {
    const active = await store.activeId();
    const record = active === undefined ? undefined : await drains.get(active);
    if (record === undefined) return;
    await schedule(record);
    logger.info(
      { drainId: record.id, phase: record.phase, deadline: record.deadline },
      'active drain re-armed',
    );
  };
  const defaults = { windowMs: config.DEFAULT_WINDOW, quietPeriodMs: config.DEFAULT_QUIET_PERIOD };
  return {
    app: createApp({ ...runtime, access, drains, store, defaults }),
    start: [
      {
        name: 'redis-preflight',
        run: async () =>
          logger.info(
            await preflightRedis(redis.producer, { readyTimeoutMs: config.REDIS_STARTUP_TIMEOUT_MS }),
            'redis preflight passed',
          ),
      },
    ],
    // Only the lease holder re-arms the active drain and runs the steps; a standby serves reads.
    activeParts: {
      lease,
      start: [
        { name: 'rearm-active-drain', run: rearm },
        // The worker's run() resolves only when it closes: start it without waiting.
        { name: 'drain-steps-worker', run: () => void worker.worker.run() },
      ],
      stop: () => worker.close(),
    },
    readyFields: () => ({ port: config.PORT, driver: seams.driver.kind }),
  };
}
