import { z } from 'zod';
import {
  AddressSchema,
  Bytes32Schema,
  TicketHashSchema,
  Uint256DecimalSchema,
  hexBytesSchema,
  uintDecimalSchema,
} from '../common';
import { secret } from '../secrets';

/**
 * A winning ticket as Node stores it and a redeemer needs it to call `redeemWinningTicket(ticket, sig,
 * recipientRand)`: every field of the on-chain ticket, the sender's signature, the secret
 * `recipientRand`, and the off-chain validity information. Field names follow go-livepeer's `pm.Ticket`.
 *
 * Encodings are exact: addresses and byte strings are lowercase `0x` hex of fixed length, integers are
 * canonical decimal strings bounded by their Solidity width. `auxData` is not carried as such: it is
 * `creationRound` as 32 big-endian bytes followed by `creationRoundBlockHash`.
 *
 * `sig` and `recipientRand` are secret (see `secret()`): they live only in the ticket record and the
 * delivery to the redemption service, never in job data, logs, metrics or API output.
 */
export const WinningTicketSchema = z.strictObject({
  /** keccak256 of the packed ticket (`getTicketHash`); the idempotency key. Intake recomputes it. */
  ticketHash: TicketHashSchema,
  /** The orchestrator's on-chain address, paid if the ticket is redeemed. */
  recipient: AddressSchema,
  /** The payer (Node's `payer_address`) whose deposit and reserve pay. */
  sender: AddressSchema,
  /** Wei paid if the ticket wins. */
  faceValue: Uint256DecimalSchema,
  /** Win threshold out of 2^256 - 1. */
  winProb: Uint256DecimalSchema,
  /** Unique per `recipientRandHash`; uint32 off-chain (uint256 in the hash). */
  senderNonce: uintDecimalSchema(32),
  /** keccak256 of `recipientRand` as 32 bytes. */
  recipientRandHash: Bytes32Schema,
  /** The round the ticket was created in (first half of `auxData`). */
  creationRound: Uint256DecimalSchema,
  /** The block hash that initialised `creationRound` (second half of `auxData`). */
  creationRoundBlockHash: Bytes32Schema,
  /** L1 block after which the ticket's params expire; redemption must not reveal the rand before it. */
  paramsExpirationBlock: uintDecimalSchema(64),
  /** The sender's 65-byte ECDSA signature (r ‖ s ‖ v) over the eth-signed-message form of the hash. */
  sig: secret(hexBytesSchema(65)),
  /** The secret preimage of `recipientRandHash`, a uint256 as 32 big-endian bytes. */
  recipientRand: secret(hexBytesSchema(32)),
});
export type WinningTicket = z.infer<typeof WinningTicketSchema>;

/** A winning ticket without its secrets: what operator APIs and dashboards may show. */
export const WinningTicketSummarySchema = WinningTicketSchema.omit({ sig: true, recipientRand: true });
export type WinningTicketSummary = z.infer<typeof WinningTicketSummarySchema>;
