import { z } from 'zod';
import { TicketHashSchema } from '../common';
import { FieldIssueSchema } from '../errors/format-zod-issues';
import { WinningTicketSchema } from './winning-ticket.schema';

/** Most tickets in one `POST /v1/winning-tickets` batch. */
export const MAX_TICKETS_PER_BATCH = 100;

/** The body of `POST /v1/winning-tickets`, exactly as Node's outbox (and the Node simulator) sends it. */
export const WinningTicketBatchSchema = z.strictObject({
  tickets: z.array(WinningTicketSchema).min(1).max(MAX_TICKETS_PER_BATCH),
});
export type WinningTicketBatch = z.infer<typeof WinningTicketBatchSchema>;

/**
 * The same body as intake parses it first: the envelope only. Each element is then parsed on its own with
 * {@link WinningTicketSchema}, so one malformed ticket is rejected alone instead of sinking the batch.
 */
export const WinningTicketBatchEnvelopeSchema = z.strictObject({
  tickets: z.array(z.unknown()).min(1).max(MAX_TICKETS_PER_BATCH),
});
export type WinningTicketBatchEnvelope = z.infer<typeof WinningTicketBatchEnvelopeSchema>;

/**
 * Why intake refused one ticket. Persistent: Node and operators match on these codes.
 * - `malformed`: a field is missing, of the wrong size or out of range (see `issues`).
 * - `hash_mismatch`: `ticketHash` is not the hash of the ticket's fields.
 * - `recipient_rand_mismatch`: keccak256(`recipientRand`) is not `recipientRandHash`.
 * - `invalid_signature`: `sig` does not recover to `sender`.
 * - `not_winning`: the win test fails.
 * - `expired`: its creation round is past the redemption window of the configured round view.
 * - `recipient_mismatch`: it pays another recipient than the configured orchestrator address.
 */
export const TicketRejectionReasonSchema = z.enum([
  'malformed',
  'hash_mismatch',
  'recipient_rand_mismatch',
  'invalid_signature',
  'not_winning',
  'expired',
  'recipient_mismatch',
]);
export type TicketRejectionReason = z.infer<typeof TicketRejectionReasonSchema>;

const IndexSchema = z
  .int()
  .min(0)
  .max(MAX_TICKETS_PER_BATCH - 1);

/** The verdict on one ticket of a batch; `index` is its position in the request. */
export const TicketIntakeResultSchema = z.discriminatedUnion('status', [
  /** Now durably stored; the handoff owns its delivery. */
  z.strictObject({ index: IndexSchema, status: z.literal('accepted'), ticketHash: TicketHashSchema }),
  /** Already stored (earlier batch or earlier in this one); nothing changed. */
  z.strictObject({ index: IndexSchema, status: z.literal('duplicate'), ticketHash: TicketHashSchema }),
  /** Refused; Node keeps it. `ticketHash` is present when the ticket parsed. */
  z.strictObject({
    index: IndexSchema,
    status: z.literal('rejected'),
    ticketHash: TicketHashSchema.optional(),
    reason: TicketRejectionReasonSchema,
    issues: z.array(FieldIssueSchema).max(50).optional(),
  }),
]);
export type TicketIntakeResult = z.infer<typeof TicketIntakeResultSchema>;

/**
 * The answer to a batch (sent only once every accepted ticket is on disk): one result per ticket, in
 * request order.
 */
export const WinningTicketIntakeResponseSchema = z
  .strictObject({ results: z.array(TicketIntakeResultSchema).min(1).max(MAX_TICKETS_PER_BATCH) })
  .superRefine((response, ctx) => {
    response.results.forEach((result, position) => {
      if (result.index !== position) {
        ctx.addIssue({
          code: 'custom',
          message: 'must equal the position of the result',
          path: ['results', position, 'index'],
        });
      }
    });
  });
export type WinningTicketIntakeResponse = z.infer<typeof WinningTicketIntakeResponseSchema>;
