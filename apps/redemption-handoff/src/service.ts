import type { RequestListener } from 'node:http';
import { TICKET_DELIVERY_QUEUE } from '@sandbox/protocol';
import { createProducer, createWorker } from '@sandbox/queue';
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
import { createRedeemerClient, type RedeemerClient } from './delivery/redeemer-client';
import { createIntake } from './intake/intake';
import { createTicketScreen } from './intake/ticket-screen';
import { createDeliverTicketHandler, deliveryBackoffStrategy } from './jobs/deliver-ticket.job';
import { createOutcomePoller } from './outcomes/outcome-poller';
import { createHandoffMetrics, type HandoffMetrics } from './ops/handoff-metrics';
import { reconcile, type ReconcileDeps } from './ops/reconcile';
import { openRedis, type RedisParts } from './ops/redis-setup';
import { createTicketQueries } from './store/ticket-queries';
import { createTicketStore, type TicketStore } from './store/ticket-store';

/** The credentials the service uses, read from their files (and registered with the log scrubber). */
function readSecrets({ config, runtime }: ServiceContext<HandoffConfig>) {
  const read = (path: string) => bearerToken(readSecretFileText(path, { scrubber: runtime.secrets }));
  return { intakeToken: read(config.INTAKE_SECRET_FILE), redeemerToken: read(config.REDEEMER_SECRET_FILE) };
}

/** Reconciles now and every RECONCILE_INTERVAL_MS. */
async function startReconciliation(config: HandoffConfig, runtime: ServiceRuntime, deps: ReconcileDeps) {
  await reconcile(deps);
  const timer = setInterval(() => {
    reconcile(deps).catch((error: unknown) => runtime.logger.warn({ err: error }, 'reconciliation failed'));
  }, config.RECONCILE_INTERVAL_MS);
  runtime.shutdown.register('workers', 'reconcile-timer', () => clearInterval(timer));
}

/** The `ticket-delivery` worker and the outcome poller, on the worker connection. */
function startDelivery(
  config: HandoffConfig,
  runtime: ServiceRuntime,
  deps: { store: TicketStore; redeemer: RedeemerClient; metrics: HandoffMetrics; now: () => number },
): void {
  const { logger, shutdown } = runtime;
  const handler = createDeliverTicketHandler({
    ...deps,
    logger,
    backoff: { baseMs: config.DELIVERY_BACKOFF_BASE_MS, capMs: config.DELIVERY_BACKOFF_CAP_MS },
    observe: deps.metrics.delivery,
  });
  const worker = createWorker(
    TICKET_DELIVERY_QUEUE,
    { 'deliver-ticket': handler },
    {
      connection: deps.store.redis,
      prefix: config.QUEUE_PREFIX,
      logger,
      concurrency: config.DELIVERY_CONCURRENCY,
      tuning: {
        limiter: { max: config.DELIVERY_RATE_MAX, duration: config.DELIVERY_RATE_WINDOW_MS },
        lockDuration: config.DELIVERY_LOCK_MS,
        stalledInterval: config.DELIVERY_STALLED_INTERVAL_MS,
        // Deliveries are idempotent: a job interrupted by crashes is retried, never failed for it.
        maxStalledCount: 1_000_000,
        settings: { backoffStrategy: deliveryBackoffStrategy(config.DELIVERY_BACKOFF_CAP_MS) },
      },
    },
  );
  shutdown.register('workers', 'ticket-delivery', () => worker.close());
  const poller = createOutcomePoller({
    ...deps,
    logger,
    pageSize: config.OUTCOME_PAGE_SIZE,
    intervalMs: config.OUTCOME_POLL_MS,
    onApplied: deps.metrics.outcome,
  });
  poller.start();
  shutdown.register('workers', 'outcome-poller', () => poller.stop());
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
 * check, the stores and the delivery queue; then, in order before the port opens, reconciliation of
 * records and jobs, and the delivery worker with the outcome poller. Every part registers its own
 * shutdown. Readiness follows Redis and its durability.
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
  });
  const reconcileDeps = { store, queries, queue: producer.queue, logger: runtime.logger, now };
  const workerStore = createTicketStore(redis.workerRedis, config.KEY_PREFIX);
  const app = buildApp(config, runtime, {
    redis,
    store,
    queue: producer.queue,
    metrics,
    token: secrets.intakeToken,
    access: context.access,
    now,
  });
  return {
    app,
    start: [
      {
        name: 'reconciliation',
        run: () =>
          startReconciliation(config, runtime, {
            ...reconcileDeps,
            retentionMs: config.TERMINAL_RETENTION_MS,
          }),
      },
      {
        name: 'delivery',
        run: () => startDelivery(config, runtime, { store: workerStore, redeemer, metrics, now }),
      },
    ],
    readyFields: () => ({ port: config.PORT, redeemer: config.REDEEMER_URL }),
  };
}
