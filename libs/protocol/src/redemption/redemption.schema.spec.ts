import { describe, expect, it } from '@jest/globals';
import { exampleTicket } from '../tickets/__fixtures__/example-ticket';
import {
  RedeemerRejectionSchema,
  RedemptionOutcomesPageSchema,
  RedemptionOutcomesQuerySchema,
  RedemptionReceiptSchema,
  RedemptionSubmissionSchema,
} from './redeemer-api.schema';
import {
  LiabilitiesResponseSchema,
  TERMINAL_TICKET_STATES,
  TicketListQuerySchema,
  TicketRecordViewSchema,
  TicketStateSchema,
  isTerminalTicketState,
} from './ticket-record.schema';

const { sig: _sig, recipientRand: _rand, ...summary } = exampleTicket;
const view = {
  ...summary,
  state: 'accepted',
  receivedAt: '2025-06-01T12:00:00.000Z',
  deadlineAt: '2025-06-03T00:00:00.000Z',
  attempts: 2,
  lastError: 'http_5xx',
  acceptedAt: '2025-06-01T12:00:05.000Z',
};

describe('redeemer contract', () => {
  it('carries the whole ticket in a submission, and nothing else', () => {
    expect(RedemptionSubmissionSchema.parse({ ticket: exampleTicket })).toEqual({ ticket: exampleTicket });
    expect(RedemptionSubmissionSchema.safeParse({ ticket: exampleTicket, extra: 1 }).success).toBe(false);
    expect(RedemptionSubmissionSchema.safeParse({ ticket: summary }).success).toBe(false);
  });

  it('acknowledges with a hash and accepted or duplicate', () => {
    const receipt = { ticketHash: exampleTicket.ticketHash, status: 'duplicate' };
    expect(RedemptionReceiptSchema.parse(receipt)).toEqual(receipt);
    expect(RedemptionReceiptSchema.safeParse({ ...receipt, status: 'queued' }).success).toBe(false);
  });

  it('rejects with one of intake reasons', () => {
    const rejection = {
      ticketHash: exampleTicket.ticketHash,
      status: 'rejected',
      reason: 'recipient_mismatch',
      message: 'pays another recipient',
    };
    expect(RedeemerRejectionSchema.parse(rejection)).toEqual(rejection);
    expect(RedeemerRejectionSchema.safeParse({ ...rejection, reason: 'nope' }).success).toBe(false);
  });

  it('pages outcomes with a cursor and bounds the query', () => {
    const page = {
      outcomes: [
        {
          seq: 7,
          ticketHash: exampleTicket.ticketHash,
          outcome: 'redeemed',
          paidWei: '1000',
          txHash: exampleTicket.creationRoundBlockHash,
          decidedAt: '2025-06-01T12:00:00.000Z',
        },
      ],
      nextAfter: 7,
    };
    expect(RedemptionOutcomesPageSchema.parse(page)).toEqual(page);
    expect(RedemptionOutcomesQuerySchema.parse({})).toEqual({ after: 0, limit: 500 });
    expect(RedemptionOutcomesQuerySchema.parse({ after: '12', limit: '3' })).toEqual({ after: 12, limit: 3 });
    expect(RedemptionOutcomesQuerySchema.safeParse({ limit: '1001' }).success).toBe(false);
    expect(RedemptionOutcomesQuerySchema.safeParse({ after: '-1' }).success).toBe(false);
  });
});

describe('handoff ticket records', () => {
  it('knows exactly five terminal states', () => {
    expect(TERMINAL_TICKET_STATES).toHaveLength(5);
    const terminal = TicketStateSchema.options.filter(isTerminalTicketState);
    expect(terminal).toEqual([...TERMINAL_TICKET_STATES]);
    expect(isTerminalTicketState('accepted')).toBe(false);
  });

  it('shows a ticket without its secrets and refuses them', () => {
    expect(TicketRecordViewSchema.parse(view)).toEqual(view);
    expect(TicketRecordViewSchema.safeParse({ ...view, sig: exampleTicket.sig }).success).toBe(false);
    expect(
      TicketRecordViewSchema.safeParse({ ...view, recipientRand: exampleTicket.recipientRand }).success,
    ).toBe(false);
  });

  it('parses list queries with defaults and refuses foreign cursors', () => {
    expect(TicketListQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(TicketListQuerySchema.parse({ state: 'received', limit: '5', cursor: '40' })).toEqual({
      state: 'received',
      limit: 5,
      cursor: '40',
    });
    expect(TicketListQuerySchema.safeParse({ cursor: 'abc' }).success).toBe(false);
    expect(TicketListQuerySchema.safeParse({ state: 'lost' }).success).toBe(false);
  });

  it('reports liabilities per payer as decimal wei', () => {
    const body = {
      payers: [{ sender: exampleTicket.sender, pendingFaceValue: '2000', tickets: 2, undelivered: 1 }],
      totalPendingFaceValue: '2000',
      asOf: '2025-06-01T12:00:00.000Z',
    };
    expect(LiabilitiesResponseSchema.parse(body)).toEqual(body);
    expect(LiabilitiesResponseSchema.safeParse({ ...body, totalPendingFaceValue: '-1' }).success).toBe(false);
  });
});
