import { createLeaseElector, leaseSettings, type LeaseElector } from '@sandbox/lease';
import { createRunnerClient, type HttpTransport } from '@sandbox/node-client';
import { SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import { createProducer, openRedisPair, preflightRedis, type TypedWorker } from '@sandbox/queue';
import {
  systemClock,
  type Clock,
  type Schedule,
  type ServiceContext,
  type ServiceWiring,
  type ActiveParts,
} from '@sandbox/service-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { createApp } from './app';
import { loadBootstrapSecret, type BootstrapSecret } from './bootstrap-secret';
import type { AdapterConfig } from './config';
import { createSessionEventsPublisher, type SessionEventsPublisher } from './events/session-events.publisher';
import { createAdapterCommandsWorker } from './jobs/adapter-commands.worker';
import { createInstanceEventsWorker } from './jobs/instance-events.worker';
import { createAdapterMetrics } from './metrics/adapter-metrics';
import { O2RSlots } from './registrations/sessions/o2r-slots';
import { createRegistrationStore } from './registrations/state/registration-store';
import { fenceNodeCalls } from './registrations/node/fenced-client';
import { RunnerManager } from './registrations/runner-manager';
import { createBeatScheduler } from './scheduler/beat-scheduler';
import { createSessionsViewWriter } from './sessions-view.writer';

/** Test seams of {@link composeAdapter}: clocks, randomness, the HTTP transport to Node. */
export interface AdapterSeams {
  now?: () => number;
  schedule?: Schedule;
  random?: () => number;
  transport?: HttpTransport;
  /** Least time between two re-reads of the bootstrap secret file. @defaultValue 5000 */
  bootstrapReloadIntervalMs?: number;
}

type AdapterServiceDeps = ServiceContext<AdapterConfig> & AdapterSeams & { bootstrap: BootstrapSecret };

/** The adapter, wired for `startService`, plus its registrations and an ordered stop for tests. */
export interface AdapterWiring extends ServiceWiring {
  readonly app: Express;
  readonly manager: RunnerManager;
  readonly lease: LeaseElector;
  readonly activeParts: ActiveParts;
  /** Runs the shutdown steps in order without the rest of the process shutdown (tests). */
  stop(): Promise<void>;
}

type Clocks = Pick<Clock, 'now' | 'schedule'>;

/** Beats due within this many ms of a wake-up run in it (fewer wake-ups; Node's TTL is many seconds). */
const BEAT_EARLY_MS = 50;

function buildManager(
  deps: AdapterServiceDeps,
  clocks: Clocks,
  redis: Redis,
  publisher: SessionEventsPublisher,
  lease: LeaseElector,
): RunnerManager {
  const { config, runtime } = deps;
  const logger = runtime.logger;
  // The gauges read the manager at scrape time, once it exists.
  const metrics = createAdapterMetrics(runtime.metrics.registry, () => manager.counts());
  const scheduler = createBeatScheduler({
    ...clocks,
    maxConcurrent: config.MAX_CONCURRENT_REQUESTS,
    earlyMs: BEAT_EARLY_MS,
    logger,
    onStart: (lateMs) => metrics.beatDelay(lateMs / 1_000),
  });
  const transport = deps.transport === undefined ? {} : { transport: deps.transport };
  const manager: RunnerManager = new RunnerManager({
    ...clocks,
    ...transport,
    client: fenceNodeCalls(createRunnerClient(transport), lease, clocks.now),
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
    store: createRegistrationStore({ redis, prefix: config.STATE_PREFIX, logger, lease }),
  });
  return manager;
}

/** Reads the bootstrap secret (exact bytes, registered with the log scrubber); throws when unusable. */
function readBootstrap({ config, runtime }: ServiceContext<AdapterConfig>, seams: AdapterSeams) {
  return loadBootstrapSecret(config.BOOTSTRAP_SECRET_FILE, {
    secrets: runtime.secrets,
    now: seams.now ?? Date.now,
    ...(seams.bootstrapReloadIntervalMs === undefined
      ? {}
      : { minReloadIntervalMs: seams.bootstrapReloadIntervalMs }),
    onReloadError: (error) =>
      runtime.logger.error({ err: error }, 'bootstrap secret file unusable; keeping the old value'),
  });
}

/**
 * Builds the adapter for `startService`: reads the bootstrap secret, checks Redis (throws
 * `RedisPreflightError` when it could lose jobs) and creates the workers paused. The registrations
 * are the service's active parts: once this replica holds the lease it restores the saved ones (they
 * resume heartbeating with their saved credentials) and the workers start taking jobs; every call to
 * Node and every registration write goes through the lease's fence. A standby only serves the API.
 */
export async function composeAdapter(
  context: ServiceContext<AdapterConfig>,
  seams: AdapterSeams = {},
): Promise<AdapterWiring> {
  const { config, runtime } = context;
  const logger = runtime.logger;
  const deps: AdapterServiceDeps = { ...context, ...seams, bootstrap: readBootstrap(context, seams) };
  const clocks: Clocks = {
    now: seams.now ?? systemClock.now,
    schedule: seams.schedule ?? systemClock.schedule,
  };
  const redis = openRedisPair(config.REDIS_URL, runtime);
  await preflightRedis(redis.worker);
  const prefix = config.QUEUE_PREFIX;
  const producer = createProducer(SESSION_EVENTS_QUEUE, { connection: redis.producer, prefix, logger });
  const lease = createLeaseElector({
    redis: redis.producer,
    key: `${config.STATE_PREFIX}:lease`,
    ...leaseSettings(config),
    logger,
    ...(seams.schedule === undefined ? {} : { schedule: seams.schedule }),
  });
  const publisher = createSessionEventsPublisher(producer);
  const manager = buildManager(deps, clocks, redis.worker, publisher, lease);
  const workerDeps = { connection: redis.worker, prefix, logger, autorun: false };
  // A command waiting for Node must not hold the worker's close (which waits for active jobs).
  const stopping = new AbortController();
  const commands = { manager, ...clocks, timeoutMs: config.COMMAND_TIMEOUT_MS, signal: stopping.signal };
  const workers: TypedWorker[] = [
    createInstanceEventsWorker(manager, workerDeps),
    createAdapterCommandsWorker(commands, workerDeps),
  ];
  const sessionsView = createSessionsViewWriter({
    redis: redis.producer,
    statePrefix: config.STATE_PREFIX,
    runners: () => manager.list(),
    clock: { now: clocks.now, every: systemClock.every },
    logger,
  });
  const stopActive = async (): Promise<void> => {
    sessionsView.stop();
    stopping.abort();
    await Promise.all(workers.map((worker) => worker.close()));
    await manager.stop();
  };
  runtime.shutdown.register('queues', 'session-events', () => producer.close());
  return {
    app: createApp({ ...runtime, access: context.access, runners: manager }),
    manager,
    lease,
    activeParts: {
      lease,
      start: [
        { name: 'registrations', run: () => manager.load() },
        // Jobs a killed adapter was handling go back first: they run now, not after BullMQ's stalled check.
        { name: 'job-workers', run: async () => void (await Promise.all(workers.map((w) => w.start()))) },
        { name: 'sessions-view', run: () => sessionsView.start() },
      ],
      stop: stopActive,
    },
    readyFields: () => ({ nodeUrl: config.NODE_URL, registrations: manager.list().length }),
    async stop() {
      await stopActive();
      await lease.release();
      await producer.close();
      await Promise.all([redis.producer.quit(), redis.worker.quit()]);
    },
  };
}
