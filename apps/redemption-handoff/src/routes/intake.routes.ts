import { WinningTicketBatchEnvelopeSchema } from '@sandbox/protocol';
import { bearerAuth, validate } from '@sandbox/service-kit';
import { Router } from 'express';
import type { Intake } from '../intake/intake';

/**
 * `POST /v1/winning-tickets` (Node → handoff): a batch of at most 100 winners, authenticated with the
 * intake credential. 200 with one verdict per ticket once every accepted ticket is durable; 400 for a
 * body that is not a batch; 503 while Redis cannot take or persist them (Node keeps them and retries).
 */
export function intakeRouter(deps: { intake: Intake; token: string }): Router {
  const router = Router();
  router.post('/v1/winning-tickets', bearerAuth(deps.token), async (req, res) => {
    const envelope = validate(WinningTicketBatchEnvelopeSchema, req.body, 'body');
    res.json(await deps.intake(envelope.tickets));
  });
  return router;
}
