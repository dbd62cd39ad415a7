import type { RequestListener } from 'node:http';
import { createLeaseElector, leaseSettings } from '@sandbox/lease';
import { TICKET_DELIVERY_QUEUE } from '@sandbox/protocol';
import { createProducer } from '@sandbox/queue';
import {
  systemClock,
  bearerToken,
  readSecretFileText,
  type ServiceContext,
  type ServiceRuntime,
  type ServiceWiring,
} from '@sandbox/service-kit';
import { createSignatureVerifier } from '@sandbox/tickets';
import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import { createApp } from './app';
import { ticketWindowsFor } from './chain/ticket-window';
import type { HandoffConfig } from './config';
import { fenceOutcomeCursor, fenceRedeemerCalls } from './delivery/fenced-redeemer';
import { createRedeemerClient } from './delivery/redeemer-client';
import { createIntake } from './intake/intake';
import { createTicketScreen } from './intake/ticket-screen';
import { startDelivery, startReconciliation, type Stoppable } from './ops/active-parts';
import { createHandoffMetrics, type HandoffMetrics } from './ops/handoff-metrics';
import { openRedis, type RedisParts } from './ops/redis-setup';
import { createTicketQueries } from './store/ticket-queries';
import { createTicketStore, type TicketStore } from './store/ticket-store';

/** The credentials the service uses, read from their files (and registered with the log scrubber). */
function readSecrets({ config, runtime }: ServiceContext<HandoffConfig>) {
  const read = (path: string) => bearerToken(readSecretFileText(path, { scrubber: runtime.secrets }));
  return { intakeToken: read(config.INTAKE_SECRET_FILE), redeemerToken: read(config.REDEEMER_SECRET_FILE) };
}

/** Intake, operator views, probes: the HTTP side. */
function buildApp(
  config: HandoffConfig,
  runtime: ServiceRuntime,
  deps: {
    redis: RedisParts;
    store: TicketStore;
    queue: Queue;
    metrics: HandoffMetrics;
    token: string;
    access: RequestHandler;
    now: () => number;
  },
): RequestListener {
  const verifier = createSignatureVerifier({
    backend: config.SIGNATURE_BACKEND,
    cacheSize: config.SIGNER_CACHE_SIZE,
  });
  // noble (pure JS) is about 20 times slower: intake then tops out near 2,000 tickets/s.
  const level = verifier.backend === 'libsecp256k1' ? 'info' : 'warn';
  runtime.logger[level]({ backend: verifier.backend }, 'ticket signatures checked');
  const screen = createTicketScreen({
    verifier,
    windows: ticketWindowsFor(config),
    ...(config.RECIPIENT_ADDRESS === undefined ? {} : { recipient: config.RECIPIENT_ADDRESS }),
  });
  const { monitor, durable, producerRedis } = deps.redis;
  const intake = createIntake({
    store: deps.store,
    queue: deps.queue,
    durable,
    screen,
    isDurable: monitor.isDurable,
    now: deps.now,
    onResults: deps.metrics.intake,
  });
  const queries = createTicketQueries(producerRedis, deps.store.keys);
  runtime.health.addReadinessCheck('redis', () => producerRedis.ping().then((reply) => reply === 'PONG'), {
    timeoutMs: 1_000,
  });
  runtime.health.addReadinessCheck('redis-durable', () => monitor.isDurable());
  return createApp({
    ...runtime,
    access: deps.access,
    intake,
    intakeToken: deps.token,
    queries,
    now: deps.now,
  });
}

/**
 * Builds the service for `startService`: Redis preflight (refuses eviction or AOF off) and durability
 * check, the stores and the delivery queue. Reconciliation, the delivery worker and the outcome poller
 * run only on the lease holder (redeemer calls and the outcome cursor through its fence). Intake and
 * reads run on every replica, which stays ready: a ticket's record is created once by its hash (one
 * Lua script) and its job id is the hash, so two replicas taking one ticket store and queue it once.
 */
export async function composeHandoff(
  context: ServiceContext<HandoffConfig>,
  seams: { now?: () => number } = {},
): Promise<ServiceWiring> {
  const { config, runtime } = context;
  const now = seams.now ?? systemClock.now;
  const secrets = readSecrets(context);
  const redis = await openRedis(config, runtime);
  const store = createTicketStore(redis.producerRedis, config.KEY_PREFIX);
  const queries = createTicketQueries(redis.producerRedis, store.keys);
  const metrics = createHandoffMetrics({
    registry: runtime.metrics.registry,
    queries,
    now,
    isDurable: redis.monitor.isDurable,
  });
  const producer = createProducer(TICKET_DELIVERY_QUEUE, {
    connection: redis.producerRedis,
    prefix: config.QUEUE_PREFIX,
    logger: runtime.logger,
  });
  runtime.shutdown.register('queues', 'ticket-delivery', () => producer.close());
  const redeemer = createRedeemerClient({
    baseUrl: config.REDEEMER_URL,
    credential: secrets.redeemerToken,
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    connections: config.DELIVERY_CONCURRENCY,
  });
  // After the workers: a delivery in flight keeps its connection until it is answered.
  runtime.shutdown.register('queues', 'redeemer-connections', () => redeemer.close?.());
  const reconcileDeps = { store, queries, queue: producer.queue, logger: runtime.logger, now };
  const lease = createLeaseElector({
    redis: redis.producerRedis,
    key: `${config.KEY_PREFIX}:lease`,
    ...leaseSettings(config),
    logger: runtime.logger,
  });
  const workerStore = fenceOutcomeCursor(createTicketStore(redis.workerRedis, config.KEY_PREFIX), lease);
  const fencedRedeemer = fenceRedeemerCalls(redeemer, lease, now);
  const stops: Stoppable[] = [];
  const app = buildApp(config, runtime, {
    redis,
    store,
    queue: producer.queue,
    metrics,
    token: secrets.intakeToken,
    access: context.access,
    now,
  });
  const reconcileAll = { ...reconcileDeps, retentionMs: config.TERMINAL_RETENTION_MS };
  return {
    app,
    activeParts: {
      lease,
      standbyServes: 'everything',
      start: [
        { name: 'reconciliation', run: () => startReconciliation(config, runtime, reconcileAll, stops) },
        {
          name: 'delivery',
          run: () =>
            startDelivery(
              config,
              runtime,
              { store: workerStore, redeemer: fencedRedeemer, metrics, now },
              stops,
            ),
        },
      ],
      stop: async () => void (await Promise.all(stops.splice(0).map((stop) => stop()))),
    },
    readyFields: () => ({ port: config.PORT, redeemer: config.REDEEMER_URL }),
  };
}
