import { openApiDocument, redemptionHandoffApi, redemptionHandoffRoutes } from '@sandbox/protocol';
import {
  createHttpApp,
  openApiRouter,
  type Health,
  type ServiceLogger,
  type ServiceMetrics,
} from '@sandbox/service-kit';
import type { Express, Request, RequestHandler } from 'express';
import type { Intake } from './intake/intake';
import { intakeRouter } from './routes/intake.routes';
import { ticketsRouter } from './routes/tickets.routes';
import type { TicketQueries } from './store/ticket-queries';

export interface HandoffAppDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  /** The operator views' access policy; the intake is exempt ({@link isIntakeRequest}). */
  access: RequestHandler;
  intake: Intake;
  /** The intake credential (`Authorization: Bearer <token>`). Secret. */
  intakeToken: string;
  queries: TicketQueries;
  now: () => number;
}

/** A batch of 100 tickets is about 90 KB of JSON; leave room for formatting. */
const BODY_LIMIT = '512kb';

/** Node's ticket hand-off (its contract's role is `intake`): its own credential, not the management tokens. */
export const isIntakeRequest = (req: Request): boolean =>
  req.method === redemptionHandoffRoutes.submitTickets.method &&
  req.path === redemptionHandoffRoutes.submitTickets.path;

/** The handoff's express app: intake, operator views, and the common probes and metrics. */
export function createApp(deps: HandoffAppDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    bodyLimit: BODY_LIMIT,
    access: deps.access,
    configure: (app) => {
      app.use(openApiRouter(openApiDocument(redemptionHandoffApi)));
      app.use(intakeRouter({ intake: deps.intake, token: deps.intakeToken }));
      app.use(ticketsRouter({ queries: deps.queries, now: deps.now }));
    },
  });
}
