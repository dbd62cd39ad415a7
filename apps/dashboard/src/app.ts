import { dashboardApi, dashboardRoutes, openApiDocument } from '@sandbox/protocol';
import {
  createHttpApp,
  openApiRouter,
  serveRoute,
  type Health,
  type ServiceLogger,
  type ServiceMetrics,
} from '@sandbox/service-kit';
import type { Queue } from 'bullmq';
import { Router, type Express, type RequestHandler } from 'express';
import { BOARD_PATH, createBoardRouter } from './board';
import { boardWriteGuard } from './write-guard';

export interface DashboardDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  /** The access policy (bearer token or basic auth: read for GET, admin for changes). */
  access: RequestHandler;
  /** One BullMQ queue per queue definition of the protocol. */
  queues: readonly Queue[];
  writable: boolean;
}

/** The dashboard's express app: the board under {@link BOARD_PATH}, guarded unless writable. */
export function createApp(deps: DashboardDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    health: deps.health,
    metrics: deps.metrics,
    access: deps.access,
    configure: (app) => {
      const own = Router();
      serveRoute(own, dashboardRoutes.root, (_request, _req, response) => response.redirect(302, BOARD_PATH));
      app.use(openApiRouter(openApiDocument(dashboardApi)));
      app.use(own);
      app.use(BOARD_PATH, boardWriteGuard(deps.writable), createBoardRouter(deps));
    },
  });
}
