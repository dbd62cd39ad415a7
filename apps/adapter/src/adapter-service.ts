import { createRunnerClient, type HttpTransport } from '@sandbox/node-client';
import { SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import { createProducer, createRedisConnection, preflightRedis, type TypedWorker } from '@sandbox/queue';
import { realSchedule, type Schedule, type ServiceRuntime, type Shutdown } from '@sandbox/service-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { createApp } from './app';
import type { BootstrapSecret } from './bootstrap-secret';
import type { AdapterConfig } from './config';
import { createSessionEventsPublisher, type SessionEventsPublisher } from './events/session-events.publisher';
import { createAdapterCommandsWorker } from './jobs/adapter-commands.worker';
import { createInstanceEventsWorker } from './jobs/instance-events.worker';
import { createAdapterMetrics } from './metrics/adapter-metrics';
import { O2RSlots } from './registrations/sessions/o2r-slots';
import { createRegistrationStore } from './registrations/state/registration-store';
import { RunnerManager } from './registrations/runner-manager';
import { createBeatScheduler } from './scheduler/beat-scheduler';

/** Dependencies of {@link createAdapterService}; clocks and the HTTP transport are injectable for tests. */
export interface AdapterServiceDeps {
  config: AdapterConfig;
  runtime: ServiceRuntime;
  bootstrap: BootstrapSecret;
  now?: () => number;
  schedule?: Schedule;
  random?: () => number;
  transport?: HttpTransport;
}

/** The adapter, wired: HTTP app, registrations and queue workers. `main.ts` adds the process around it. */
export interface AdapterService {
  readonly app: Express;
  readonly manager: RunnerManager;
  /** Starts taking jobs (after the HTTP listener is up). */
  start(): void;
  /** Registers the shutdown hooks in their phases: workers, registrations, queues, Redis. */
  registerShutdown(shutdown: Shutdown): void;
  /** Runs the same steps in order, for tests. */
  stop(): Promise<void>;
}

type Clocks = { now: () => number; schedule: Schedule };

function buildManager(
  deps: AdapterServiceDeps,
  clocks: Clocks,
  redis: Redis,
  publisher: SessionEventsPublisher,
): RunnerManager {
  const { config, runtime } = deps;
  const logger = runtime.logger;
  // The gauges read the manager at scrape time, once it exists.
  const metrics = createAdapterMetrics(runtime.metrics.registry, () => manager.counts());
  const scheduler = createBeatScheduler({
    ...clocks,
    maxConcurrent: config.MAX_CONCURRENT_REQUESTS,
    logger,
    onStart: (lateMs) => metrics.beatDelay(lateMs / 1_000),
  });
  const transport = deps.transport === undefined ? {} : { transport: deps.transport };
  const manager: RunnerManager = new RunnerManager({
    ...clocks,
    ...transport,
    client: createRunnerClient(transport),
    bootstrap: deps.bootstrap,
    nodeUrl: config.NODE_URL,
    metrics,
    logger,
    random: deps.random ?? Math.random,
    maxRequestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    o2rKeepaliveTimeoutMs: config.O2R_KEEPALIVE_TIMEOUT_MS,
    o2rSlots: new O2RSlots(config.O2R_MAX_SUBSCRIPTIONS),
    publisher,
    scheduler,
    defaultIntervalMs: config.DEFAULT_HEARTBEAT_INTERVAL,
    store: createRegistrationStore({ redis, prefix: config.STATE_PREFIX, logger }),
  });
  return manager;
}

/**
 * Builds the adapter: checks Redis (throws `RedisPreflightError` when it could lose jobs), restores
 * the saved registrations (they resume heartbeating with their saved credentials), and creates the
 * workers paused.
 */
export async function createAdapterService(deps: AdapterServiceDeps): Promise<AdapterService> {
  const { config, runtime } = deps;
  const logger = runtime.logger;
  const clocks = { now: deps.now ?? Date.now, schedule: deps.schedule ?? realSchedule };
  const redis = {
    worker: createRedisConnection(config.REDIS_URL, 'worker', { logger }),
    producer: createRedisConnection(config.REDIS_URL, 'producer', { logger }),
  };
  await preflightRedis(redis.worker);
  const prefix = config.QUEUE_PREFIX;
  const producer = createProducer(SESSION_EVENTS_QUEUE, { connection: redis.producer, prefix, logger });
  const manager = buildManager(deps, clocks, redis.worker, createSessionEventsPublisher(producer));
  await manager.load();
  const workerDeps = { connection: redis.worker, prefix, logger, autorun: false };
  // A command waiting for Node must not hold the worker's close (which waits for active jobs).
  const stopping = new AbortController();
  const commands = { manager, ...clocks, timeoutMs: config.COMMAND_TIMEOUT_MS, signal: stopping.signal };
  const workers: TypedWorker[] = [
    createInstanceEventsWorker(manager, workerDeps),
    createAdapterCommandsWorker(commands, workerDeps),
  ];
  runtime.health.addReadinessCheck('redis', async () => (await redis.worker.ping()) === 'PONG', {
    timeoutMs: 1_000,
  });
  const steps: Array<[Parameters<Shutdown['register']>[0], string, () => Promise<unknown>]> = [
    ['readiness', 'commands', async () => stopping.abort()],
    ['workers', 'job-workers', () => Promise.all(workers.map((worker) => worker.close()))],
    ['informers', 'registrations', () => manager.stop()],
    ['queues', 'session-events', () => producer.close()],
    ['redis', 'redis', () => Promise.all([redis.producer.quit(), redis.worker.quit()])],
  ];
  return {
    app: createApp({ ...runtime, runners: manager }),
    manager,
    start: () => workers.forEach((worker) => void worker.worker.run()),
    registerShutdown: (shutdown) =>
      steps.forEach(([phase, name, hook]) => shutdown.register(phase, name, hook)),
    async stop() {
      for (const [, , hook] of steps) await hook();
    },
  };
}
