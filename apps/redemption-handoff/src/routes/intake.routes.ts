import { redemptionHandoffRoutes as routes } from '@sandbox/protocol';
import { bearerAuth, serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';
import type { Intake } from '../intake/intake';

/**
 * `POST /v1/winning-tickets` (Node → handoff): a batch of at most 100 winners, authenticated with the
 * intake credential. 200 with one verdict per ticket once every accepted ticket is durable; 400 for a
 * body that is not a batch; 503 while Redis cannot take or persist them (Node keeps them and retries).
 */
export function intakeRouter(deps: { intake: Intake; token: string }): Router {
  const router = Router();
  serveRoute(
    router,
    routes.submitTickets,
    async ({ body: envelope }, _req, res) => {
      res.json(await deps.intake(envelope.tickets));
    },
    { guard: bearerAuth(deps.token) },
  );
  return router;
}
