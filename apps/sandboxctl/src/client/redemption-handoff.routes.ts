import {
  LiabilitiesResponseSchema,
  TicketListQuerySchema,
  TicketListResponseSchema,
} from '@sandbox/protocol';
import type { ServiceDefinition } from '../config';
import { defineRoute } from './route';

const service = 'redemption-handoff';

/** The service and its port in the embedded stack. */
export const redemptionHandoffService: ServiceDefinition = {
  name: service,
  defaultUrl: 'http://127.0.0.1:7104',
};

/** redemption-handoff's operator views (its intake route is Node's, not an operator's). */
export const redemptionHandoffRoutes = {
  listTickets: defineRoute({
    service,
    operationId: 'listWinningTickets',
    method: 'GET',
    path: '/v1/winning-tickets',
    query: TicketListQuerySchema,
    success: [200],
    response: TicketListResponseSchema,
  }),
  liabilities: defineRoute({
    service,
    operationId: 'getLiabilities',
    method: 'GET',
    path: '/v1/liabilities',
    success: [200],
    response: LiabilitiesResponseSchema,
  }),
} as const;
