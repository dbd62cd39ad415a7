import {
  readSecretFileText,
  bearerToken,
  type ServiceContext,
  type ServiceWiring,
} from '@sandbox/service-kit';
import { reportSigningKey } from '@sandbox/evaluation-report';
import { EVALUATIONS_QUEUE } from '@sandbox/protocol';
import { createProducer, createRedisConnection, createWorker, preflightRedis } from '@sandbox/queue';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createApp } from './app';
import type { VerifierConfig } from './config';
import { createRunEvaluationHandler } from './jobs/run-evaluation.job';
import { syncSchedules } from './jobs/schedules';
import { discoverRunners } from './node/discovery';
import { createSignerClient } from './node/signer-client';
import { createVerifierMetrics } from './ops/verifier-metrics';
import { buildReport } from './run/build-report';
import { ReliabilityCounter } from './run/reliability';
import { runEvaluation } from './run/run-evaluation';
import { createEvaluationStore } from './store/evaluation-store';

/** This build's version, written into every report. */
export const VERIFIER_VERSION = '0.1.0';

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
  const wallNow = seams.wallNow ?? Date.now;
  const monoNow = seams.monoNow ?? (() => performance.now());
  const { credential, key } = readSecrets(config, context, seams);
  const producerRedis = createRedisConnection(config.REDIS_URL, 'producer', { logger });
  const workerRedis = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  const storeRedis = createRedisConnection(config.REDIS_URL, 'worker', { logger });
  shutdown.register('redis', 'redis', () =>
    Promise.all([producerRedis, workerRedis, storeRedis].map((r) => r.quit())),
  );
  const retentionSeconds = Math.ceil(config.REPORT_RETENTION_MS / 1000);
  const store = createEvaluationStore(storeRedis, config.KEY_PREFIX, retentionSeconds);
  const readStore = createEvaluationStore(producerRedis, config.KEY_PREFIX, retentionSeconds);
  const producer = createProducer(EVALUATIONS_QUEUE, {
    connection: producerRedis,
    prefix: config.QUEUE_PREFIX,
    logger,
  });
  shutdown.register('queues', 'evaluations', () => producer.close());
  const metrics = createVerifierMetrics(runtime.metrics.registry);
  // Runs in progress end at once on shutdown (their sessions stopped), so the worker closes in time.
  const stopping = new AbortController();
  shutdown.register('readiness', 'abort-runs', () => stopping.abort());
  const plan = {
    latencyProbes: config.LATENCY_PROBES,
    transferSeconds: config.TRANSFER_SECONDS,
    warmupSeconds: config.WARMUP_SECONDS,
    maxTransferBytes: config.MAX_TRANSFER_BYTES,
    hashShares: config.HASH_SHARES,
    hashDifficultyBits: config.HASH_DIFFICULTY_BITS,
    runTimeoutMs: config.RUN_TIMEOUT_MS,
  };
  const signer = createSignerClient({
    url: config.SIGNER_URL,
    credential,
    timeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  const handler = createRunEvaluationHandler({
    store,
    producer,
    metrics,
    logger,
    wallNow,
    scheduleJitterMs: config.SCHEDULE_JITTER_MS,
    run: (job) =>
      runEvaluation(job, {
        nodeUrl: config.NODE_URL,
        plan,
        requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
        paymentIntervalMs: config.PAYMENT_INTERVAL_MS,
        signer,
        logger,
        wallNow,
        monoNow,
        stopSignal: stopping.signal,
        ...(seams.newSeed ? { newSeed: seams.newSeed } : {}),
      }),
    buildReport: (record) =>
      buildReport(record, {
        verifierId: config.VERIFIER_ID,
        verifierVersion: VERIFIER_VERSION,
        key,
        plan,
        nodeUrl: config.NODE_URL,
        resultTtlMs: config.RESULT_TTL_MS,
        newReportId: () => `rep-${randomUUID()}`,
      }),
    discover: (app) =>
      discoverRunners(
        config.NODE_URL,
        { app },
        { timeoutMs: config.REQUEST_TIMEOUT_MS, reliability: new ReliabilityCounter() },
      ),
  });
  const worker = createWorker(
    EVALUATIONS_QUEUE,
    { 'run-evaluation': handler },
    {
      connection: workerRedis,
      prefix: config.QUEUE_PREFIX,
      logger,
      concurrency: config.CONCURRENCY,
      autorun: false,
      // A run lasts up to RUN_TIMEOUT_MS; a lock that outlives it means only a crash lets a job stall.
      tuning: { lockDuration: Math.max(30_000, config.RUN_TIMEOUT_MS / 2) },
    },
  );
  shutdown.register('workers', 'evaluations', () => worker.close());
  runtime.health.addReadinessCheck('redis', () => producerRedis.ping().then((reply) => reply === 'PONG'), {
    timeoutMs: 1_000,
  });
  return {
    app: createApp({ ...runtime, producer, store: readStore, now: wallNow, access: context.access }),
    start: [
      {
        name: 'redis-preflight',
        run: () => preflightRedis(producerRedis, { readyTimeoutMs: config.REDIS_STARTUP_TIMEOUT_MS }),
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
