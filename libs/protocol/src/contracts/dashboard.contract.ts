import { z } from 'zod';
import { defineApi, defineRoute } from './route-contract';

const service = 'dashboard';

/** Where the dashboard mounts the board. */
export const BOARD_PATH = '/queues';

/**
 * The dashboard's own routes. The board under `/queues` is bull-board's UI and its JSON API
 * (`/queues/api/...`), which the dashboard guards (reads: read token; changes: admin token, and only
 * when started writable; adding or editing jobs and emptying a queue never) but does not define.
 */
export const dashboardRoutes = {
  root: defineRoute({
    service,
    operationId: 'openDashboard',
    summary: 'Redirects to the board',
    method: 'GET',
    path: '/',
    success: [302],
    errors: [],
    role: 'read',
  }),
  board: defineRoute({
    service,
    operationId: 'board',
    summary: "The board (bull-board's page) over every queue of the protocol",
    method: 'GET',
    path: BOARD_PATH,
    success: [200],
    response: z.string(),
    produces: 'text/html',
    errors: [],
    role: 'read',
  }),
} as const;

export const dashboardApi = defineApi({
  service,
  title: 'dashboard',
  description:
    "A read-only view of every queue (bull-board). The board's JSON API under /queues/api is bull-board's own.",
  schemas: {},
  routes: dashboardRoutes,
  basicAuth: true,
});
