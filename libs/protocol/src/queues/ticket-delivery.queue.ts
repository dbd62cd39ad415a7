import { z } from 'zod';
import { defineQueue } from '../queue-definition';
import { TicketHashSchema } from '../common';

/**
 * Deliver one winning ticket to the redemption service. Only the hash travels in the job (and is its job
 * id): the ticket record with its secrets stays in Redis and is read by the worker.
 */
export const DeliverTicketSchema = z.strictObject({ ticketHash: TicketHashSchema });
export type DeliverTicket = z.infer<typeof DeliverTicketSchema>;

/**
 * redemption-handoff → itself.
 * The queue name is persistent: renaming it strands queued jobs and needs a migration.
 */
export const TICKET_DELIVERY_QUEUE = defineQueue('ticket-delivery', {
  'deliver-ticket': DeliverTicketSchema,
});
