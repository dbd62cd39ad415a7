import { instanceManagerApi, openApiDocument } from '@sandbox/protocol';
import { createHttpApp, openApiRouter } from '@sandbox/service-kit';
import type { Health, ServiceLogger, ServiceMetrics } from '@sandbox/service-kit';
import type { Express, RequestHandler } from 'express';
import type { AppsRouteDeps } from './routes/apps.routes';
import { appsRouter } from './routes/apps.routes';
import type { InstancesRouteDeps } from './routes/instances.routes';
import { instancesRouter } from './routes/instances.routes';

/** Dependencies of {@link createApp}. */
export interface AppDeps extends AppsRouteDeps, InstancesRouteDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  /** The management API's access policy (read: GET; admin: everything else). */
  access: RequestHandler;
}

/** The instance-manager's HTTP API (never listens). */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    bodyLimit: '1mb',
    access: deps.access,
    configure: (app) => {
      app.use(openApiRouter(openApiDocument(instanceManagerApi)));
      app.use(appsRouter(deps));
      app.use(instancesRouter(deps));
    },
  });
}
