import { z } from 'zod';
import { AddressSchema, Bytes32Schema, Uint256DecimalSchema } from '../common/chain.schema';
import { ReasonSchema, TimestampSchema } from '../common/fields.schema';
import { WinningTicketSummarySchema } from '../tickets/winning-ticket.schema';

/**
 * The state of one winning ticket in redemption-handoff. Persistent (stored in records, filtered on).
 * `received` → `delivering` → `accepted` (the redeemer durably holds it) → one terminal state reported
 * by the redeemer (`redeemed`, `already_used`, `expired`, `rejected`), or `rejected` straight from a
 * delivery the redeemer refused for good, or `expired_undelivered` when the ticket's deadline passed
 * while the redeemer could not be reached. A ticket reaches exactly one terminal state.
 */
export const TicketStateSchema = z.enum([
  'received',
  'delivering',
  'accepted',
  'redeemed',
  'already_used',
  'expired',
  'rejected',
  'expired_undelivered',
]);
export type TicketState = z.infer<typeof TicketStateSchema>;

/** States a ticket never leaves. */
export const TERMINAL_TICKET_STATES = Object.freeze([
  'redeemed',
  'already_used',
  'expired',
  'rejected',
  'expired_undelivered',
] as const satisfies readonly TicketState[]);

/** States in which the handoff still owes a delivery. */
export const UNDELIVERED_TICKET_STATES = Object.freeze([
  'received',
  'delivering',
] as const satisfies readonly TicketState[]);

/** True for a state a ticket never leaves. */
export function isTerminalTicketState(state: TicketState): boolean {
  return (TERMINAL_TICKET_STATES as readonly TicketState[]).includes(state);
}

/** Why the last delivery attempt failed, as a category (never the redeemer's text). */
export const DeliveryErrorKindSchema = z.enum([
  'timeout',
  'connection_refused',
  'network',
  'http_5xx',
  'http_429',
  'http_4xx',
  'bad_response',
]);
export type DeliveryErrorKind = z.infer<typeof DeliveryErrorKindSchema>;

/**
 * One ticket as `GET /v1/winning-tickets` shows it: the ticket without `sig` and `recipientRand`, plus
 * its delivery state. Strict, so a secret can never be added by accident.
 */
export const TicketRecordViewSchema = z.strictObject({
  ...WinningTicketSummarySchema.shape,
  state: TicketStateSchema,
  receivedAt: TimestampSchema,
  /** After this instant the ticket can no longer be redeemed. */
  deadlineAt: TimestampSchema,
  /** Delivery attempts so far. */
  attempts: z.int().min(0),
  lastAttemptAt: TimestampSchema.optional(),
  lastError: DeliveryErrorKindSchema.optional(),
  /** When the redeemer acknowledged it. */
  acceptedAt: TimestampSchema.optional(),
  terminalAt: TimestampSchema.optional(),
  /** Why it ended `rejected` (or what the redeemer said about another outcome). */
  reason: ReasonSchema.optional(),
  paidWei: Uint256DecimalSchema.optional(),
  txHash: Bytes32Schema.optional(),
});
export type TicketRecordView = z.infer<typeof TicketRecordViewSchema>;

/** Query of `GET /v1/winning-tickets`: newest first, optionally one state only. */
export const TicketListQuerySchema = z.strictObject({
  state: TicketStateSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** Opaque cursor from the previous page's `nextCursor`. */
  cursor: z
    .string()
    .regex(/^[0-9]{1,20}$/, { message: 'must be a cursor returned by a previous page' })
    .optional(),
});
export type TicketListQuery = z.infer<typeof TicketListQuerySchema>;

/** Answer of `GET /v1/winning-tickets`. */
export const TicketListResponseSchema = z.strictObject({
  tickets: z.array(TicketRecordViewSchema),
  nextCursor: z.string().optional(),
});
export type TicketListResponse = z.infer<typeof TicketListResponseSchema>;

/** What one payer still owes through tickets that are not redeemed yet (no terminal state). */
export const PayerLiabilitySchema = z.strictObject({
  sender: AddressSchema,
  /** Sum of the face values of its pending tickets, in wei. */
  pendingFaceValue: Uint256DecimalSchema,
  tickets: z.int().min(1),
  /** Of those, tickets the redeemer has not acknowledged yet. */
  undelivered: z.int().min(0),
});
export type PayerLiability = z.infer<typeof PayerLiabilitySchema>;

/**
 * Answer of `GET /v1/liabilities`: pending face value per payer, largest first, the feed an
 * orchestrator needs to cap its exposure to a payer (go-livepeer's max float).
 */
export const LiabilitiesResponseSchema = z.strictObject({
  payers: z.array(PayerLiabilitySchema),
  totalPendingFaceValue: z.string().regex(/^(?:0|[1-9][0-9]*)$/),
  asOf: TimestampSchema,
});
export type LiabilitiesResponse = z.infer<typeof LiabilitiesResponseSchema>;
