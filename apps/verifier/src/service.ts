import {
  monotonicClock,
  systemClock,
  readSecretFileText,
  bearerToken,
  type ServiceContext,
  type ServiceRuntime,
  type ServiceWiring,
} from '@sandbox/service-kit';
import { reportSigningKey, type ReportSigningKey } from '@sandbox/evaluation-report';
import { EVALUATIONS_QUEUE } from '@sandbox/protocol';
import {
  createProducer,
  createRedisConnection,
  createWorker,
  preflightRedis,
  type Producer,
} from '@sandbox/queue';
import { randomUUID } from 'node:crypto';
import { createApp } from './app';
import type { VerifierConfig } from './config';
import { createRunEvaluationHandler } from './jobs/run-evaluation.job';
import { syncSchedules } from './jobs/schedules';
import { discoverRunners } from './node/discovery';
import { createSignerClient } from './node/signer-client';
import { createVerifierMetrics } from './ops/verifier-metrics';
import { planOf } from './plan/plan-of-config';
import { buildReport, type ReportDeps } from './run/build-report';
import type { RunDeps } from './run/run-evaluation';
import { runSession } from './run/run-session';
import { createEvaluationStore, type EvaluationStore } from './store/evaluation-store';

/** This build's version, written into every report. */
const VERIFIER_VERSION = '0.1.0';

/** What the verifier can be given instead of the real clock and files (tests). */
export interface VerifierSeams {
  wallNow?: () => number;
  monoNow?: () => number;
  /** @defaultValue read from `SIGNER_SECRET_FILE` */
  signerCredential?: string;
  /** @defaultValue read from `SIGNING_KEY_FILE` */
  signingKeyHex?: string;
  /** @defaultValue 32 random bytes per run */
  newSeed?: () => Uint8Array;
}

/** Reads both secrets, registering them with the scrubber so they can never be logged. */
function readSecrets(config: VerifierConfig, context: ServiceContext<VerifierConfig>, seams: VerifierSeams) {
  const scrubber = context.runtime.secrets;
  const credential =
    seams.signerCredential ?? bearerToken(readSecretFileText(config.SIGNER_SECRET_FILE, { scrubber }));
  const keyHex = seams.signingKeyHex ?? readSecretFileText(config.SIGNING_KEY_FILE, { scrubber }).trim();
  if (!/^[0-9a-f]{64}$/u.test(keyHex))
    throw new Error('SIGNING_KEY_FILE must hold 64 lowercase hex characters');
  return { credential, key: reportSigningKey(keyHex) };
}

/** Three connections: fail-fast for the API and producer, patient for the worker and the store's writes. */
function openRedis(config: VerifierConfig, runtime: ServiceRuntime) {
  const { logger } = runtime;
  const producer = createRedisConnection(config.REDIS_URL, 'producer', { logger });
  const worker = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  const store = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  runtime.shutdown.register('redis', 'redis', () =>
    Promise.all([producer, worker, store].map((connection) => connection.quit())),
  );
  runtime.health.addReadinessCheck('redis', () => producer.ping().then((reply) => reply === 'PONG'), {
    timeoutMs: 1_000,
  });
  return { producer, worker, store };
}

interface HandlerParts {
  store: EvaluationStore;
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  key: ReportSigningKey;
  credential: string;
  stopSignal: AbortSignal;
  wallNow: () => number;
  monoNow: () => number;
}

/** The `run-evaluation` handler over the paying Node client, the plan and the report signer. */
function evaluationHandler(
  context: ServiceContext<VerifierConfig>,
  parts: HandlerParts,
  seams: VerifierSeams,
) {
  const { config, runtime } = context;
  const { logger } = runtime;
  const plan = planOf(config);
  const signer = createSignerClient({
    url: config.SIGNER_URL,
    credential: parts.credential,
    timeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  const runDeps: RunDeps = {
    nodeUrl: config.NODE_URL,
    plan,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    paymentIntervalMs: config.PAYMENT_INTERVAL_MS,
    signer,
    logger,
    wallNow: parts.wallNow,
    monoNow: parts.monoNow,
    stopSignal: parts.stopSignal,
    ...(seams.newSeed ? { newSeed: seams.newSeed } : {}),
  };
  const reportDeps: ReportDeps = {
    verifierId: config.VERIFIER_ID,
    verifierVersion: VERIFIER_VERSION,
    key: parts.key,
    plan,
    nodeUrl: config.NODE_URL,
    resultTtlMs: config.RESULT_TTL_MS,
    newReportId: () => `rep-${randomUUID()}`,
  };
  return createRunEvaluationHandler({
    store: parts.store,
    producer: parts.producer,
    metrics: createVerifierMetrics(runtime.metrics.registry),
    logger,
    wallNow: parts.wallNow,
    scheduleJitterMs: config.SCHEDULE_JITTER_MS,
    run: (job, count, onRecord) => runSession(job, count, runDeps, onRecord),
    evaluationsPerSession: config.EVALUATIONS_PER_SESSION,
    buildReport: (record) => buildReport(record, reportDeps),
    discover: (app, reliability) =>
      discoverRunners(config.NODE_URL, { app }, { timeoutMs: config.REQUEST_TIMEOUT_MS, reliability }),
  });
}

/**
 * Wires the verifier from explicit parts: Redis (preflighted), the `evaluations` producer and worker,
 * the schedules, the paying Node client with the remote signer, the report store and the HTTP API.
 * Every part registers its own shutdown.
 */
export function composeVerifier(
  context: ServiceContext<VerifierConfig>,
  seams: VerifierSeams = {},
): ServiceWiring {
  const { config, runtime } = context;
  const { logger, shutdown } = runtime;
  const wallNow = seams.wallNow ?? systemClock.now;
  const { credential, key } = readSecrets(config, context, seams);
  const redis = openRedis(config, runtime);
  const retentionSeconds = Math.ceil(config.REPORT_RETENTION_MS / 1000);
  const producer = createProducer(EVALUATIONS_QUEUE, {
    connection: redis.producer,
    prefix: config.QUEUE_PREFIX,
    logger,
  });
  shutdown.register('queues', 'evaluations', () => producer.close());
  // Runs in progress end at once on shutdown (their sessions stopped), so the worker closes in time.
  const stopping = new AbortController();
  shutdown.register('readiness', 'abort-runs', () => stopping.abort());
  const handler = evaluationHandler(
    context,
    {
      store: createEvaluationStore(redis.store, config.KEY_PREFIX, retentionSeconds),
      producer,
      key,
      credential,
      stopSignal: stopping.signal,
      wallNow,
      monoNow: seams.monoNow ?? monotonicClock.now,
    },
    seams,
  );
  // BullMQ renews the lock while a run is alive; after a crash the job stalls once the lock lapses.
  const worker = createWorker(
    EVALUATIONS_QUEUE,
    { 'run-evaluation': handler },
    {
      connection: redis.worker,
      prefix: config.QUEUE_PREFIX,
      logger,
      concurrency: config.CONCURRENCY,
      autorun: false,
    },
  );
  shutdown.register('workers', 'evaluations', () => worker.close());
  const readStore = createEvaluationStore(redis.producer, config.KEY_PREFIX, retentionSeconds);
  return {
    app: createApp({ ...runtime, producer, store: readStore, now: wallNow, access: context.access }),
    start: [
      {
        name: 'redis-preflight',
        run: () => preflightRedis(redis.producer, { readyTimeoutMs: config.REDIS_STARTUP_TIMEOUT_MS }),
      },
      {
        name: 'schedules',
        run: () =>
          syncSchedules(producer.queue, config.SCHEDULE_APPS, {
            everyMs: config.SCHEDULE_EVERY_MS,
            logger,
            now: wallNow,
          }),
      },
    ],
    afterListen: [{ name: 'worker', run: () => void worker.worker.run() }],
    readyFields: () => ({
      node: config.NODE_URL,
      publicKey: key.publicKeyHex,
      schedules: config.SCHEDULE_APPS,
    }),
  };
}
