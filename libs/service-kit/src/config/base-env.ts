import { z } from 'zod';
import {
  durationMsField,
  hostField,
  listenPortField,
  logLevelField,
  nodeEnvField,
  secretFilePathField,
} from './env-fields';

/** A `redis://` or `rediss://` URL; credentials may travel in it (the logger redacts URL credentials). */
function redisUrlField(fallback = 'redis://127.0.0.1:6390') {
  return z.url({ protocol: /^rediss?$/ }).default(fallback);
}

/** A comma-separated list of host names (`api.example.com,ops.example.com`). @defaultValue none */
function hostListField() {
  return z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim().toLowerCase())
        .filter((part) => part !== ''),
    )
    .pipe(z.array(z.string().regex(/^[a-z0-9.-]+$/, { message: 'must be host names' })));
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
 * The environment every service's process reads, with or without Redis and a management API:
 *
 * - `PORT` (0 lets the OS pick, for tests), `HOST` (`127.0.0.1`; `0.0.0.0` in a pod);
 * - `LOG_LEVEL`, `NODE_ENV` (`production` unless set; only `development` logs stacks);
 * - `SHUTDOWN_TIMEOUT_MS` (the hard limit of a shutdown; keep it below `terminationGracePeriodSeconds`);
 * - `DRAIN_DELAY_MS` (readiness off → this delay → listener closed; 0 in tests);
 * - `SERVICE_VERSION` (what `/healthz` reports; else the workspace's package.json version).
 *
 * A service with neither Redis nor a management API (an app the platform runs, such as the evaluation
 * responder) extends this one; every other service extends {@link baseEnvSchema}.
 */
export function coreEnvSchema(defaults: BaseEnvDefaults) {
  return z.object({
    PORT: listenPortField(defaults.port),
    HOST: hostField(),
    LOG_LEVEL: logLevelField(),
    NODE_ENV: nodeEnvField(),
    SHUTDOWN_TIMEOUT_MS: durationMsField(defaults.shutdownTimeoutMs ?? 20_000, 100),
    DRAIN_DELAY_MS: durationMsField(defaults.drainDelayMs ?? 5_000),
    /** The version `/healthz` reports (an image tag, a commit). @defaultValue the workspace's package.json version */
    SERVICE_VERSION: z.string().min(1).max(100).optional(),
  });
}

/** What every service's configuration holds (the output of {@link coreEnvSchema}). */
export type CoreEnv = z.output<ReturnType<typeof coreEnvSchema>>;

/**
 * The environment of a service with Redis and a management API, extended by each service's own schema
 * (`baseEnvSchema({ port: 7105 }).extend({ ... })`): {@link coreEnvSchema} plus
 *
 * - `REDIS_URL` (with `REDIS_PASSWORD_FILE`, the password read from that file is put into it),
 *   `QUEUE_PREFIX` (BullMQ's key prefix, shared by every service; persistent);
 * - `ADMIN_TOKEN_FILE`, `READ_TOKEN_FILE` (required: the management API's bearer tokens, one per file)
 *   and `ALLOWED_HOSTS` (comma-separated host names the API answers to besides its own and loopback).
 *
 * `startService` also checks that the drain delay is shorter than the shutdown timeout.
 */
export function baseEnvSchema(defaults: BaseEnvDefaults) {
  return coreEnvSchema(defaults).extend({
    REDIS_URL: redisUrlField(),
    /** A file holding Redis's password (`requirepass`); `startService` puts it into `REDIS_URL`. Secret. */
    REDIS_PASSWORD_FILE: secretFilePathField().optional(),
    /** BullMQ key prefix shared by every service. Persistent: changing it strands every job. */
    QUEUE_PREFIX: z.string().min(1).default('bull'),
    /** The management API's `admin` token (writes and reads). Secret file. */
    ADMIN_TOKEN_FILE: secretFilePathField(),
    /** The management API's `read` token (GET and HEAD only). Secret file. */
    READ_TOKEN_FILE: secretFilePathField(),
    ALLOWED_HOSTS: hostListField(),
  });
}

/** The configuration of a service with Redis and a management API (the output of {@link baseEnvSchema}). */
export type BaseEnv = z.output<ReturnType<typeof baseEnvSchema>>;

/** Whether a configuration declares Redis and the management API's tokens (its schema extends {@link baseEnvSchema}). */
export function hasRedisAndApi<C extends CoreEnv>(config: C): config is C & BaseEnv {
  const fields = config as Partial<BaseEnv>;
  return typeof fields.REDIS_URL === 'string' && typeof fields.ADMIN_TOKEN_FILE === 'string';
}
