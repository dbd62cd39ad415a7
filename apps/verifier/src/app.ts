import type { EVALUATIONS_QUEUE } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';
import { openApiDocument, verifierApi } from '@sandbox/protocol';
import {
  createHttpApp,
  openApiRouter,
  type Health,
  type ServiceLogger,
  type ServiceMetrics,
} from '@sandbox/service-kit';
import type { Express, RequestHandler } from 'express';
import { evaluationsRouter } from './routes/evaluations.routes';
import { targetsRouter } from './routes/targets.routes';
import type { EvaluationStore } from './store/evaluation-store';

export interface VerifierAppDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  store: EvaluationStore;
  now: () => number;
  /** The management API's access policy (read token for GETs, admin token for runs). */
  access: RequestHandler;
}

/** The verifier's express app: on-demand runs, target results, reports, and the common probes. */
export function createApp(deps: VerifierAppDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    access: deps.access,
    configure: (app) => {
      app.use(openApiRouter(openApiDocument(verifierApi)));
      app.use(evaluationsRouter(deps));
      app.use(targetsRouter(deps));
    },
  });
}
