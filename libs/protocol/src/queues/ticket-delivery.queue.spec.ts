import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { DeliverTicketSchema, TICKET_DELIVERY_QUEUE } from './ticket-delivery.queue';

const ticketHash = '0x132744bc4f8d940a4917e318ff28fa2d9555b7a724797f08c79e01e5f12d78c0';

describe('ticket-delivery queue', () => {
  it('has a persistent name and one job', () => {
    expect(TICKET_DELIVERY_QUEUE.name).toBe('ticket-delivery');
    expect(Object.keys(TICKET_DELIVERY_QUEUE.jobs)).toEqual(['deliver-ticket']);
  });

  it('accepts the ticket hash only', () => {
    expect(DeliverTicketSchema.parse({ ticketHash })).toEqual({ ticketHash });
  });

  it('refuses any other field, so no secret can ride along', () => {
    const rand = '0xef9bb082521b7bee3af84131ece48e79a28990c120850e6ea0c5df07dc539c95';
    const result = DeliverTicketSchema.safeParse({ ticketHash, recipientRand: rand });
    expect(result.success).toBe(false);
    expect(JSON.stringify(formatZodIssues(result.error ?? []))).not.toContain(rand.slice(2, 18));
  });

  it.each([ticketHash.toUpperCase(), ticketHash.slice(2), `${ticketHash}00`, ''])(
    'rejects the hash %j',
    (hash) => {
      const result = DeliverTicketSchema.safeParse({ ticketHash: hash });
      expect(formatZodIssues(result.error ?? []).map((issue) => issue.path)).toEqual(['ticketHash']);
    },
  );
});
