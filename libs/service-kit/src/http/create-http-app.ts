import { ErrorCode } from '@sandbox/protocol';
import express from 'express';
import type { Express, Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Health } from '../health/health';
import type { ServiceLogger } from '../logging/logger';
import type { ServiceMetrics } from '../metrics/metrics';
import { errorMiddleware, sendError } from './error-middleware';
import { httpMetricsMiddleware } from './metrics-middleware';
import { requestIdMiddleware } from './request-id';

/** Probe and scrape paths: served before the body parser and never logged per request. */
const PROBE_PATHS: readonly string[] = Object.freeze(['/healthz', '/readyz', '/metrics']);

/** Options of {@link createHttpApp}. */
export interface CreateHttpAppOptions {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  /** Largest accepted JSON body (bytes or `'100kb'`); larger gets 413. @defaultValue `'100kb'` */
  bodyLimit?: number | string;
  /**
   * Guards every route but the probes (mounted after `/healthz`, `/readyz`, `/metrics` and before the
   * body parser): the `access` of `startService`'s context. @defaultValue none (tests of routers)
   */
  access?: RequestHandler;
  /** Adds the service's routers; runs after the common middleware, before the 404 and error handlers. */
  configure?: (app: Express) => void;
  /** Generates request ids when the caller sent none (or an unusable one). @defaultValue `randomUUID` */
  generateRequestId?: () => string;
  /**
   * Names the requests a client repeats on a timer (a poll): their access lines are logged at debug
   * rather than info, so they do not drown the rest. Failures are still logged at error.
   */
  isRoutineRequest?: (request: { method: string; path: string }) => boolean;
}

/**
 * Builds a service's express 5 app (it never listens; see `listen`). In order: request ids, request
 * metrics, pino-http (redacting), `/healthz`, `/readyz`, `/metrics`, the access policy (when given),
 * the JSON body parser with a limit, the service's routes, a protocol 404 and the one error middleware.
 */
export function createHttpApp(options: CreateHttpAppOptions): Express {
  const { logger, health, metrics } = options;
  const app = express();
  app.disable('x-powered-by');
  app.use(requestIdMiddleware(options.generateRequestId));
  app.use(httpMetricsMiddleware(metrics.httpRequestDuration));
  app.use(
    pinoHttp({
      logger,
      wrapSerializers: false,
      genReqId: (req) => req.id,
      customAttributeKeys: { reqId: 'reqId' },
      quietReqLogger: true,
      autoLogging: { ignore: (req) => PROBE_PATHS.includes(req.url?.split('?')[0] ?? '') },
      customLogLevel: (req, res, error) => {
        if (error !== undefined || res.statusCode >= 500) return 'error';
        const path = (req.originalUrl ?? req.url ?? '').split('?')[0] ?? '';
        return options.isRoutineRequest?.({ method: req.method ?? '', path }) ? 'debug' : 'info';
      },
    }),
  );
  app.get('/healthz', (_req, res) => {
    res.json(health.version === undefined ? { status: 'ok' } : { status: 'ok', version: health.version });
  });
  app.get('/readyz', async (_req, res) => {
    const { httpStatus, report } = await health.readiness();
    res.status(httpStatus).json(report);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.render());
  });
  if (options.access !== undefined) app.use(options.access);
  app.use(express.json({ limit: options.bodyLimit ?? '100kb' }));
  options.configure?.(app);
  app.use((req: Request, res: Response) => {
    sendError(req, res, 404, { code: ErrorCode.NotFound, message: 'no such route' });
  });
  app.use(errorMiddleware({ logger }));
  return app;
}
