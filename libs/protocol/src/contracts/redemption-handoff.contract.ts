import { ErrorCode } from '../errors/error-codes';
import {
  LiabilitiesResponseSchema,
  TicketListQuerySchema,
  TicketListResponseSchema,
} from '../redemption/ticket-record.schema';
import {
  WinningTicketBatchEnvelopeSchema,
  WinningTicketIntakeResponseSchema,
} from '../tickets/winning-ticket-batch.schema';
import { defineApi, defineRoute } from './route-contract';

const service = 'redemption-handoff';
const { PayloadTooLarge, Unavailable } = ErrorCode;

/** redemption-handoff's API: Node's ticket intake and the operators' views. */
export const redemptionHandoffRoutes = {
  submitTickets: defineRoute({
    service,
    operationId: 'submitWinningTickets',
    summary:
      'Node hands over a batch of at most 100 winners: one verdict per ticket, once every accepted one is durable (503: Node keeps them and retries)',
    method: 'POST',
    path: '/v1/winning-tickets',
    body: WinningTicketBatchEnvelopeSchema,
    success: [200],
    response: WinningTicketIntakeResponseSchema,
    errors: [PayloadTooLarge, Unavailable],
    role: 'intake',
  }),
  listTickets: defineRoute({
    service,
    operationId: 'listWinningTickets',
    summary: 'Tickets newest first, optionally of one state (without sig and recipientRand)',
    method: 'GET',
    path: '/v1/winning-tickets',
    query: TicketListQuerySchema,
    success: [200],
    response: TicketListResponseSchema,
    errors: [Unavailable],
    role: 'read',
  }),
  liabilities: defineRoute({
    service,
    operationId: 'getLiabilities',
    summary: 'Pending face value per payer',
    method: 'GET',
    path: '/v1/liabilities',
    success: [200],
    response: LiabilitiesResponseSchema,
    errors: [Unavailable],
    role: 'read',
  }),
} as const;

export const redemptionHandoffApi = defineApi({
  service,
  title: 'redemption-handoff',
  description: "Winning tickets from Node's hand-off to the redemption service's durable acknowledgement.",
  schemas: {
    WinningTicketBatch: WinningTicketBatchEnvelopeSchema,
    IntakeResponse: WinningTicketIntakeResponseSchema,
    TicketList: TicketListResponseSchema,
    Liabilities: LiabilitiesResponseSchema,
  },
  routes: redemptionHandoffRoutes,
});
