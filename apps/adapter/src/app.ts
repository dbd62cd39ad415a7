import { adapterApi, openApiDocument } from '@sandbox/protocol';
import {
  createHttpApp,
  openApiRouter,
  type Health,
  type SecretScrubber,
  type ServiceLogger,
  type ServiceMetrics,
} from '@sandbox/service-kit';
import type { Express, RequestHandler } from 'express';
import { runnersRouter, type RunnerSource } from './routes/runners.routes';

/** Dependencies of {@link createApp}. */
export interface AdapterAppDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  secrets: SecretScrubber;
  runners: RunnerSource;
  /** The API's access policy (every route is a read). */
  access: RequestHandler;
}

/** The adapter's HTTP surface: the registrations API plus the kit's health, readiness and metrics. */
export function createApp(deps: AdapterAppDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    access: deps.access,
    configure: (app) => {
      app.use(openApiRouter(openApiDocument(adapterApi)));
      app.use(runnersRouter({ runners: deps.runners, secrets: deps.secrets }));
    },
  });
}
