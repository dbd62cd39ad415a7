import type { RequestListener, Server, ServerOptions } from 'node:http';
import type { RequestHandler } from 'express';
import type { DestinationStream } from 'pino';
import type { z } from 'zod';
import { hasRedisAndApi } from '../config/base-env';
import type { BaseEnv, CoreEnv } from '../config/base-env';
import { formatConfigFailure, loadConfig, processConfigIo } from '../config/load-config';
import type { ConfigIo, Env } from '../config/load-config';
import { readSecretFileText } from '../config/secret-file';
import { accessPolicy, readAccessTokens } from '../http/access';
import { bearerToken } from '../http/bearer-auth';
import { ForbiddenError } from '../errors/app-error';
import { MIN_SECRET_LENGTH } from '../logging/secret-scrubber';
import type { AccessPolicyOptions } from '../http/access';
import { createServiceRuntime, serveHttp } from '../lifecycle/service-runtime';
import type { ServiceRuntime } from '../lifecycle/service-runtime';
import { installSignalHandlers } from '../lifecycle/signals';
import { refuseWritesOnStandby, runActiveParts } from './lease-gate';
import type { ActiveParts } from './lease-gate';
import { workspaceVersion } from './workspace-version';
import type { SignalSource } from '../lifecycle/signals';

/** One named step of a service's start; runs once, in the order given. Throwing fails the start. */
export interface StartHook {
  name: string;
  run(): unknown;
}

/** What `compose` receives: the parsed configuration, the process-wide runtime, the API's guard. */
export interface ServiceContext<C extends CoreEnv> {
  config: C;
  runtime: ServiceRuntime;
  /**
   * The management API's access policy (`accessPolicy` over the token files, the service's name and
   * `ALLOWED_HOSTS`): pass it to `createHttpApp({ access })`, which mounts it after the probes. A
   * service whose schema declares no API tokens (only {@link coreEnvSchema}) has no management API:
   * its `access` refuses every request it guards.
   */
  access: RequestHandler;
}

/** Per-service options of the access policy (the tokens, name and hosts come from the config). */
export type ServiceAccessOptions = Pick<AccessPolicyOptions, 'basicAuth' | 'exempt'>;

/** What a service's `compose` returns: its HTTP app and the steps that start it. */
export interface ServiceWiring {
  /** The service's HTTP app (normally from `createHttpApp`); the kit listens with it. */
  app: RequestListener;
  /** Options of the HTTP server the kit creates (timeouts of long streams). @defaultValue Node's */
  server?: ServerOptions;
  /** Run in order before the listener opens (Redis preflight, loading state). */
  start?: readonly StartHook[];
  /**
   * Run in order once the port is open, before readiness turns on: long recoveries that must not hold
   * `/healthz` (liveness) hostage. Readiness stays 503 until the last one finished.
   */
  afterListen?: readonly StartHook[];
  /**
   * Parts that run only on the replica holding the service's lease (see {@link runActiveParts}); the
   * others serve the rest (reads) and report `/readyz` 503 `standby`.
   */
  activeParts?: ActiveParts;
  /** Fields of the `service ready` log line (never secrets). */
  readyFields?: () => Record<string, unknown>;
}

/** How a service is built; see {@link startService}. */
export interface ServiceDefinition<S extends z.ZodType<CoreEnv>> {
  /** The service's name: the logger's `svc` and the metrics' prefix. */
  name: string;
  /**
   * The env schema: `baseEnvSchema({ port }).extend({ ... })`, or `coreEnvSchema({ port })` for a
   * service with neither Redis nor a management API.
   */
  configSchema: S;
  /** The environment (the service's `processEnv()` from its config.ts). */
  env: Env;
  /**
   * Builds the parts of the service. Each part registers its own shutdown hooks
   * (`runtime.shutdown.register(phase, name, hook)`) and readiness checks as it is created, so what
   * was built is closed even when a later part fails.
   */
  compose(context: ServiceContext<z.output<S>>): ServiceWiring | Promise<ServiceWiring>;
  /** How the management API is guarded beyond the defaults (basic auth, exempt routes). */
  access?: ServiceAccessOptions;
  /** Process seams for tests. @defaultValue the real process (stderr, `process.exit`, stdout, signals) */
  io?: ConfigIo;
  signals?: SignalSource;
  destination?: DestinationStream;
  exit?: (code: number) => void;
}

/** A started service (returned for tests; `main.ts` ignores it). */
export interface StartedService<C extends CoreEnv> {
  config: C;
  runtime: ServiceRuntime;
  server: Server;
}

/**
 * The one entry of every service's `main.ts`:
 *
 * 1. parses the environment once with `configSchema`; on any problem it writes every issue (never a
 *    value) as one JSON line to stderr and exits 1 before anything else exists, so no port opens;
 * 2. creates the runtime (logger, health, metrics, shutdown) and installs the signal handlers
 *    (SIGTERM/SIGINT → shutdown, once); reads the API's token files into the access policy
 *    (`context.access`; a Redis password in `REDIS_URL` and the tokens are registered with the scrubber);
 * 3. runs `compose`, then the `start` hooks in order; listens on `HOST:PORT` (the listener closes in the
 *    `http` shutdown phase, `DRAIN_DELAY_MS` after readiness turned 503); runs the `afterListen` hooks;
 *    marks the service ready and logs `service ready`; with `activeParts`, contends for the lease and
 *    starts them once it holds it (readiness says `standby` until then).
 *
 * If anything in step 3 throws, the error is logged and the shutdown runs with exit code 1 (closing
 * what the parts registered); the promise then rejects with that error.
 */
export async function startService<S extends z.ZodType<CoreEnv>>(
  definition: ServiceDefinition<S>,
): Promise<StartedService<z.output<S>>> {
  const config = parseServiceConfig(definition.configSchema, definition.env, definition.io);
  const runtime = createServiceRuntime({
    svc: definition.name,
    logLevel: config.LOG_LEVEL,
    nodeEnv: config.NODE_ENV,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    version: config.SERVICE_VERSION ?? workspaceVersion(import.meta.dirname),
    ...(definition.destination === undefined ? {} : { destination: definition.destination }),
    ...(definition.exit === undefined ? {} : { exit: definition.exit }),
  });
  installSignalHandlers(definition.signals ?? process, runtime);
  try {
    const access = refuseWritesOnStandby(serviceAccess(definition, config, runtime), runtime.health);
    const wiring = await definition.compose({ config: withRedisPassword(config, runtime), runtime, access });
    await runHooks(runtime, wiring.start ?? []);
    const server = await serveHttp(runtime, wiring.app, {
      port: config.PORT,
      host: config.HOST,
      drainDelayMs: config.DRAIN_DELAY_MS,
      ...(wiring.server === undefined ? {} : { serverOptions: wiring.server }),
    });
    await runHooks(runtime, wiring.afterListen ?? []);
    if (wiring.activeParts !== undefined) runActiveParts(runtime, wiring.activeParts);
    runtime.health.markReady();
    runtime.logger.info(wiring.readyFields?.() ?? {}, 'service ready');
    return { config, runtime, server };
  } catch (error) {
    runtime.logger.fatal({ err: error }, 'service failed to start');
    await runtime.shutdown.run('start-up failed', 1);
    throw error;
  }
}

/**
 * {@link loadConfig} plus the rules of the base schema that span fields: the drain delay must leave
 * the shutdown time to close everything.
 */
function parseServiceConfig<S extends z.ZodType<CoreEnv>>(
  schema: S,
  env: Env,
  io: ConfigIo = processConfigIo,
): z.output<S> {
  const config = loadConfig(schema, env, io);
  if (config.DRAIN_DELAY_MS >= config.SHUTDOWN_TIMEOUT_MS) {
    io.writeError(
      formatConfigFailure([{ path: 'DRAIN_DELAY_MS', message: 'must be shorter than SHUTDOWN_TIMEOUT_MS' }]),
    );
    return io.exit(1);
  }
  return config;
}

/**
 * The configuration with the password of `REDIS_PASSWORD_FILE` (registered with the scrubber) in
 * `REDIS_URL`, so every connection a service opens from its config authenticates.
 */
function withRedisPassword<C extends CoreEnv>(config: C, runtime: ServiceRuntime): C {
  if (!hasRedisAndApi(config) || config.REDIS_PASSWORD_FILE === undefined) return config;
  const password = bearerToken(readSecretFileText(config.REDIS_PASSWORD_FILE, { scrubber: runtime.secrets }));
  const url = new URL(config.REDIS_URL);
  url.password = password;
  return { ...config, REDIS_URL: url.toString() };
}

/**
 * Reads the token files and registers every secret of the base config with the log scrubber. Without
 * API tokens in the schema there is no management API, so the policy refuses everything it guards.
 */
function serviceAccess<C extends CoreEnv>(
  definition: { name: string; access?: ServiceAccessOptions },
  config: C,
  runtime: ServiceRuntime,
): RequestHandler {
  if (!hasRedisAndApi(config)) return refuseAll;
  return apiAccess(definition, config, runtime);
}

const refuseAll: RequestHandler = (_req, _res, next) =>
  next(new ForbiddenError('this service has no management API'));

function apiAccess(
  definition: { name: string; access?: ServiceAccessOptions },
  config: BaseEnv,
  runtime: ServiceRuntime,
): RequestHandler {
  const redisPassword = decodeURIComponent(new URL(config.REDIS_URL).password);
  // A password too short to scrub safely stays covered by the logger's URL-credential redaction.
  if (redisPassword.length >= MIN_SECRET_LENGTH) runtime.secrets.register(redisPassword);
  const tokens = readAccessTokens(
    { adminTokenFile: config.ADMIN_TOKEN_FILE, readTokenFile: config.READ_TOKEN_FILE },
    runtime.secrets,
  );
  return accessPolicy({
    ...definition.access,
    tokens,
    serviceName: definition.name,
    hosts: config.ALLOWED_HOSTS,
  });
}

async function runHooks(runtime: ServiceRuntime, hooks: readonly StartHook[]): Promise<void> {
  for (const hook of hooks) {
    runtime.logger.debug({ hook: hook.name }, 'start hook');
    await hook.run();
  }
}
