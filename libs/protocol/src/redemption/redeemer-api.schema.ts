import { z } from 'zod';
import { Bytes32Schema, TicketHashSchema, Uint256DecimalSchema } from '../common/chain.schema';
import { ReasonSchema, TimestampSchema } from '../common/fields.schema';
import { TicketRejectionReasonSchema } from '../tickets/winning-ticket-batch.schema';
import { WinningTicketSchema } from '../tickets/winning-ticket.schema';

/*
 * The contract between redemption-handoff and the redemption service (the key holder that submits
 * `redeemWinningTicket`; tools/redeemer-sim in development). Persistent: both sides match on paths,
 * headers, statuses and codes.
 *
 * Delivery: `POST /v1/tickets` with `Authorization: Bearer <credential>` and
 * `Idempotency-Key: <ticketHash>`, body {@link RedemptionSubmissionSchema}. The redeemer answers only
 * once the ticket is durably stored on its side:
 * - 201 {@link RedemptionReceiptSchema} `accepted` (new) or 200 `duplicate` (it already had this hash):
 *   from now on the redeemer owns the ticket and reports exactly one outcome for it.
 * - 422 {@link RedeemerRejectionSchema}: the ticket can never be redeemed (bad signature, loser, expired,
 *   wrong recipient...). Permanent.
 * - 400 (malformed body, or an idempotency key that is not the body's ticket hash) and 409 (the hash is
 *   known with different contents): permanent, with the common error body.
 * - Anything else (401/403 misconfigured credential, 404, 408, 429, 5xx) or no answer: try again later.
 *   A wrong credential is an operator error that must not cost tickets, so it is retried, not final.
 *
 * Outcomes: the redeemer keeps an append-only, numbered log of terminal outcomes. The handoff polls
 * `GET /v1/outcomes?after=<seq>&limit=<n>` (same credential) and applies each outcome idempotently, then
 * stores `nextAfter` as its cursor. Polling (not callbacks) keeps the redeemer free of an outbound
 * outbox of its own and lets the handoff catch up after any outage with one cursor.
 */

/** The header carrying the idempotency key of a delivery: the ticket hash. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Paths of the redeemer's API. Persistent. */
export const REDEEMER_PATHS = Object.freeze({
  tickets: '/v1/tickets',
  outcomes: '/v1/outcomes',
});

/** Body of `POST /v1/tickets`: the whole winning ticket, secrets included (this is their one exit). */
export const RedemptionSubmissionSchema = z.strictObject({ ticket: WinningTicketSchema });
export type RedemptionSubmission = z.infer<typeof RedemptionSubmissionSchema>;

/** A 200/201 answer to a delivery: the redeemer durably holds the ticket. */
export const RedemptionReceiptSchema = z.strictObject({
  ticketHash: TicketHashSchema,
  status: z.enum(['accepted', 'duplicate']),
});
export type RedemptionReceipt = z.infer<typeof RedemptionReceiptSchema>;

/** A 422 answer: the redeemer will never redeem this ticket. `reason` uses intake's codes. */
export const RedeemerRejectionSchema = z.strictObject({
  ticketHash: TicketHashSchema,
  status: z.literal('rejected'),
  reason: TicketRejectionReasonSchema,
  message: ReasonSchema,
});
export type RedeemerRejection = z.infer<typeof RedeemerRejectionSchema>;

/**
 * The one terminal outcome the redeemer reports per ticket:
 * - `redeemed`: the redemption transaction succeeded (`paidWei` may be below face value when the
 *   sender's deposit and reserve fell short, see livepeer/protocol#663);
 * - `already_used`: the chain already marks the ticket hash used (redeemed by someone else, earlier);
 * - `expired`: its creation round left the validity window before it could be redeemed;
 * - `rejected`: the chain refused it for another reason, given in `reason`.
 */
export const RedemptionOutcomeKindSchema = z.enum(['redeemed', 'already_used', 'expired', 'rejected']);
export type RedemptionOutcomeKind = z.infer<typeof RedemptionOutcomeKindSchema>;

/** One entry of the outcome log; `seq` increases strictly. */
export const RedemptionOutcomeSchema = z.strictObject({
  seq: z.int().min(1),
  ticketHash: TicketHashSchema,
  outcome: RedemptionOutcomeKindSchema,
  /** Why, for `rejected` (and optionally the others). Never contains ticket secrets. */
  reason: ReasonSchema.optional(),
  /** Wei actually paid, for `redeemed`. */
  paidWei: Uint256DecimalSchema.optional(),
  /** The redemption transaction, for `redeemed`. */
  txHash: Bytes32Schema.optional(),
  decidedAt: TimestampSchema,
});
export type RedemptionOutcome = z.infer<typeof RedemptionOutcomeSchema>;

/** Most outcomes in one page. */
export const MAX_OUTCOMES_PER_PAGE = 1_000;

/** Query of `GET /v1/outcomes`: outcomes with `seq > after`, oldest first. */
export const RedemptionOutcomesQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_OUTCOMES_PER_PAGE).default(500),
});
export type RedemptionOutcomesQuery = z.infer<typeof RedemptionOutcomesQuerySchema>;

/** Answer of `GET /v1/outcomes`; `nextAfter` is the cursor of the next call (unchanged when empty). */
export const RedemptionOutcomesPageSchema = z.strictObject({
  outcomes: z.array(RedemptionOutcomeSchema).max(MAX_OUTCOMES_PER_PAGE),
  nextAfter: z.int().min(0),
});
export type RedemptionOutcomesPage = z.infer<typeof RedemptionOutcomesPageSchema>;
