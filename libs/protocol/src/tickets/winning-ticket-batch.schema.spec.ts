import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { exampleTicket } from './__fixtures__/example-ticket';
import {
  WinningTicketBatchEnvelopeSchema,
  WinningTicketBatchSchema,
  WinningTicketIntakeResponseSchema,
} from './winning-ticket-batch.schema';
import { WinningTicketSchema } from './winning-ticket.schema';

const otherHash = `0x${'1f'.repeat(32)}`;

function pathsOf(result: { success: boolean; error?: Parameters<typeof formatZodIssues>[0] }): string[] {
  return result.success || !result.error ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe('WinningTicketBatchSchema', () => {
  it('accepts 1 to 100 tickets', () => {
    expect(WinningTicketBatchSchema.safeParse({ tickets: [exampleTicket] }).success).toBe(true);
    expect(WinningTicketBatchSchema.safeParse({ tickets: Array(100).fill(exampleTicket) }).success).toBe(
      true,
    );
  });

  it('rejects empty and oversized batches', () => {
    expect(pathsOf(WinningTicketBatchSchema.safeParse({ tickets: [] }))).toEqual(['tickets']);
    expect(pathsOf(WinningTicketBatchSchema.safeParse({ tickets: Array(101).fill(exampleTicket) }))).toEqual([
      'tickets',
    ]);
  });

  it('points at the bad field of the bad ticket', () => {
    const tickets = [exampleTicket, exampleTicket, exampleTicket, { ...exampleTicket, sig: '0x00' }];
    expect(pathsOf(WinningTicketBatchSchema.safeParse({ tickets }))).toEqual(['tickets.3.sig']);
  });
});

describe('WinningTicketBatchEnvelopeSchema', () => {
  it('lets intake judge each ticket alone, so one bad ticket does not sink the batch', () => {
    const body = { tickets: [exampleTicket, { ...exampleTicket, sig: '0x00' }, null] };
    const envelope = WinningTicketBatchEnvelopeSchema.parse(body);
    const verdicts = envelope.tickets.map((ticket) => WinningTicketSchema.safeParse(ticket).success);
    expect(verdicts).toEqual([true, false, false]);
  });

  it('still refuses a body that is not a batch', () => {
    expect(pathsOf(WinningTicketBatchEnvelopeSchema.safeParse({ tickets: exampleTicket }))).toEqual([
      'tickets',
    ]);
    expect(pathsOf(WinningTicketBatchEnvelopeSchema.safeParse({ tickets: Array(101).fill({}) }))).toEqual([
      'tickets',
    ]);
    expect(pathsOf(WinningTicketBatchEnvelopeSchema.safeParse({ tickets: [{}], batchId: 'x' }))).toEqual([
      '(root)',
    ]);
  });
});

describe('WinningTicketIntakeResponseSchema', () => {
  const response = {
    results: [
      { index: 0, status: 'accepted', ticketHash: exampleTicket.ticketHash },
      { index: 1, status: 'duplicate', ticketHash: exampleTicket.ticketHash },
      { index: 2, status: 'rejected', ticketHash: otherHash, reason: 'not_winning' },
      {
        index: 3,
        status: 'rejected',
        reason: 'malformed',
        issues: [{ path: 'sig', message: 'must be 0x…' }],
      },
    ],
  };

  it('accepts one verdict per ticket in request order', () => {
    expect(WinningTicketIntakeResponseSchema.parse(response)).toEqual(response);
  });

  it('rejects results out of order', () => {
    const swapped = { results: [response.results[1], response.results[0]] };
    expect(pathsOf(WinningTicketIntakeResponseSchema.safeParse(swapped))).toEqual([
      'results.0.index',
      'results.1.index',
    ]);
  });

  it('rejects unknown statuses and reasons, and a rejection without a reason', () => {
    const bad = {
      results: [
        { index: 0, status: 'queued', ticketHash: otherHash },
        { index: 1, status: 'rejected', reason: 'too_cheap' },
        { index: 2, status: 'rejected' },
        { index: 3, status: 'accepted' },
      ],
    };
    expect(pathsOf(WinningTicketIntakeResponseSchema.safeParse(bad))).toEqual([
      'results.0.status',
      'results.1.reason',
      'results.2.reason',
      'results.3.ticketHash',
    ]);
  });

  it('never carries a ticket secret in a verdict', () => {
    const leaky = { results: [{ ...response.results[0], recipientRand: exampleTicket.recipientRand }] };
    expect(WinningTicketIntakeResponseSchema.safeParse(leaky).success).toBe(false);
  });
});
