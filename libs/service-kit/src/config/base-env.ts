import { z } from 'zod';
import { durationMsField, hostField, listenPortField, logLevelField, nodeEnvField } from './env-fields';

/** A `redis://` or `rediss://` URL; credentials may travel in it (the logger redacts URL credentials). */
export function redisUrlField(fallback = 'redis://127.0.0.1:6390') {
  return z.url({ protocol: /^rediss?$/ }).default(fallback);
}

/** Per-service defaults of {@link baseEnvSchema}. */
export interface BaseEnvDefaults {
  /** The service's own port. */
  port: number;
  /** @defaultValue 20000 */
  shutdownTimeoutMs?: number;
  /**
   * Time between readiness turning 503 and the listener closing, so Kubernetes endpoints and load
   * balancers stop routing here before the port goes away. @defaultValue 5000
   */
  drainDelayMs?: number;
}

/**
 * The environment every service reads, extended by each service's own schema
 * (`baseEnvSchema({ port: 7105 }).extend({ ... })`):
 *
 * - `PORT` (0 lets the OS pick, for tests), `HOST` (`127.0.0.1`; `0.0.0.0` in a pod);
 * - `REDIS_URL`, `QUEUE_PREFIX` (BullMQ's key prefix, shared by every service; persistent);
 * - `LOG_LEVEL`, `NODE_ENV` (`production` unless set; only `development` logs stacks);
 * - `SHUTDOWN_TIMEOUT_MS` (the hard limit of a shutdown; keep it below `terminationGracePeriodSeconds`);
 * - `DRAIN_DELAY_MS` (readiness off → this delay → listener closed; 0 in tests).
 *
 * `startService` also checks that the drain delay is shorter than the shutdown timeout.
 */
export function baseEnvSchema(defaults: BaseEnvDefaults) {
  return z.object({
    PORT: listenPortField(defaults.port),
    HOST: hostField(),
    REDIS_URL: redisUrlField(),
    /** BullMQ key prefix shared by every service. Persistent: changing it strands every job. */
    QUEUE_PREFIX: z.string().min(1).default('bull'),
    LOG_LEVEL: logLevelField(),
    NODE_ENV: nodeEnvField(),
    SHUTDOWN_TIMEOUT_MS: durationMsField(defaults.shutdownTimeoutMs ?? 20_000, 100),
    DRAIN_DELAY_MS: durationMsField(defaults.drainDelayMs ?? 5_000),
  });
}

/** What every service's configuration holds (the output of {@link baseEnvSchema}). */
export type BaseEnv = z.output<ReturnType<typeof baseEnvSchema>>;
