import {
  redemptionHandoffRoutes as routes,
  TicketRecordViewSchema,
  type LiabilitiesResponse,
  type TicketListResponse,
} from '@sandbox/protocol';
import { orRedisUnavailable } from '@sandbox/queue';
import { serveRoute } from '@sandbox/service-kit';
import { Router } from 'express';
import type { TicketQueries } from '../store/ticket-queries';
import { toRecordView } from '../store/ticket-record';

/**
 * Operator views: `GET /v1/winning-tickets` (newest first, optionally one state; each ticket without
 * `sig` and `recipientRand`, enforced by the strict view schema) and `GET /v1/liabilities` (pending face
 * value per payer).
 */
export function ticketsRouter(deps: { queries: TicketQueries; now: () => number }): Router {
  const router = Router();
  serveRoute(router, routes.listTickets, async ({ query }, _req, res) => {
    const page = await orRedisUnavailable(() =>
      deps.queries.list(query.state, query.limit, Number(query.cursor ?? '0')),
    );
    const body: TicketListResponse = {
      tickets: page.records.map((record) => TicketRecordViewSchema.parse(toRecordView(record))),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
    res.json(body);
  });
  serveRoute(router, routes.liabilities, async (_request, _req, res) => {
    const payers = await orRedisUnavailable(() => deps.queries.liabilities());
    const total = payers.reduce((sum, payer) => sum + BigInt(payer.pendingFaceValue), 0n);
    const body: LiabilitiesResponse = {
      payers,
      totalPendingFaceValue: total.toString(),
      asOf: new Date(deps.now()).toISOString(),
    };
    res.json(body);
  });
  return router;
}
