import { drainControllerApi, openApiDocument } from '@sandbox/protocol';
import {
  createHttpApp,
  openApiRouter,
  type Health,
  type ServiceLogger,
  type ServiceMetrics,
} from '@sandbox/service-kit';
import type { Express, RequestHandler } from 'express';
import { drainsRouter, type DrainsRouterDeps } from './routes/drains.routes';

export interface DrainAppDeps extends DrainsRouterDeps {
  /** The management API's access policy (reads: read or admin token; changes: admin token). */
  access: RequestHandler;
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
}

/** The drain-controller's express app: the drains API, its OpenAPI document, probes and metrics. */
export function createApp(deps: DrainAppDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    access: deps.access,
    configure: (app) => {
      app.use(openApiRouter(openApiDocument(drainControllerApi)));
      app.use(drainsRouter(deps));
    },
  });
}
