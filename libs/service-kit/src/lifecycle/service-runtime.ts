import type { Server } from 'node:http';
import type { RequestListener, ServerOptions } from 'node:http';
import type { DestinationStream } from 'pino';
import type { LogLevel, NodeEnv } from '../config/env-fields';
import { createHealth } from '../health/health';
import type { Health } from '../health/health';
import { boundPort, closeServer, listen } from '../http/listen';
import { createLogger } from '../logging/logger';
import type { ServiceLogger } from '../logging/logger';
import { createSecretScrubber } from '../logging/secret-scrubber';
import type { SecretScrubber } from '../logging/secret-scrubber';
import { createMetrics } from '../metrics/metrics';
import type { ServiceMetrics } from '../metrics/metrics';
import { createShutdown } from './shutdown';
import type { Shutdown } from './shutdown';
import { delay } from './timers';

/** The process-wide services every app's `main.ts` builds first and passes down as deps. */
export interface ServiceRuntime {
  secrets: SecretScrubber;
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  shutdown: Shutdown;
}

/** Options of {@link createServiceRuntime}. */
export interface CreateServiceRuntimeOptions {
  svc: string;
  logLevel: LogLevel;
  /** Stacks are logged only in `development`. */
  nodeEnv: NodeEnv;
  /** Hard limit of the shutdown; keep it below `terminationGracePeriodSeconds`. */
  shutdownTimeoutMs: number;
  /** @defaultValue stdout */
  destination?: DestinationStream;
  /** @defaultValue `process.exit` */
  exit?: (code: number) => void;
  /** The version `/healthz` reports. @defaultValue none */
  version?: string;
}

/** Builds the scrubber, logger, health, metrics and shutdown registry of one process, wired together. */
export function createServiceRuntime(options: CreateServiceRuntimeOptions): ServiceRuntime {
  const secrets = createSecretScrubber();
  const logger = createLogger({
    svc: options.svc,
    level: options.logLevel,
    secrets,
    includeStacks: options.nodeEnv === 'development',
    ...(options.destination === undefined ? {} : { destination: options.destination }),
  });
  const health = createHealth({
    logger,
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  const metrics = createMetrics({ svc: options.svc });
  const shutdown = createShutdown({
    logger,
    health,
    timeoutMs: options.shutdownTimeoutMs,
    ...(options.exit === undefined ? {} : { exit: options.exit }),
  });
  return { secrets, logger, health, metrics, shutdown };
}

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  port: number;
  /** @defaultValue `127.0.0.1` */
  host?: string;
  /**
   * Time between readiness turning 503 and the listener closing, so load balancers and k8s
   * endpoints stop routing here first. @defaultValue 0
   */
  drainDelayMs?: number;
  /** Cut connections still open this long after the listener closed. @defaultValue wait */
  forceCloseAfterMs?: number;
  /** Options of the server (its timeouts). @defaultValue Node's */
  serverOptions?: ServerOptions;
}

/**
 * Listens with the app and registers its graceful close in the `http` shutdown phase (and the
 * drain delay in the `readiness` phase). Resolves with the listening server.
 */
export async function serveHttp(
  runtime: Pick<ServiceRuntime, 'logger' | 'shutdown'>,
  app: RequestListener,
  options: ServeHttpOptions,
): Promise<Server> {
  const { logger, shutdown } = runtime;
  const drainDelayMs = options.drainDelayMs ?? 0;
  if (drainDelayMs > 0) shutdown.register('readiness', 'drain-delay', () => delay(drainDelayMs));
  const host = options.host ?? '127.0.0.1';
  const server = await listen(app, {
    port: options.port,
    host,
    ...(options.serverOptions === undefined ? {} : { serverOptions: options.serverOptions }),
  });
  const closeOptions =
    options.forceCloseAfterMs === undefined ? {} : { forceAfterMs: options.forceCloseAfterMs };
  shutdown.register('http', 'http-server', () => closeServer(server, closeOptions));
  logger.info({ host, port: boundPort(server) }, 'listening');
  return server;
}
