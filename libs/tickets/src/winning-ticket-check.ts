import type { TicketRejectionReason, WinningTicket } from '@sandbox/protocol';
import { bytesToBigInt, hexToBytes, keccak256 } from './bytes';
import { createSignatureVerifier, type SignatureVerifier } from './signature-verifier';
import { computeRecipientRandHash, computeTicketHash } from './ticket-hash';

const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;

/** The contract's win test: `uint256(keccak256(sig ‖ recipientRand)) < winProb`. */
export function isWinningTicket(sig: string, recipientRand: string, winProb: string | bigint): boolean {
  const value = bytesToBigInt(keccak256(hexToBytes(sig), hexToBytes(recipientRand)));
  return value < BigInt(winProb);
}

/** The outcome of {@link checkWinningTicket}: `message` names the check, never a value. */
export type TicketCheckResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: TicketRejectionReason; readonly message: string };

const fail = (reason: TicketRejectionReason, message: string): TicketCheckResult => ({
  ok: false,
  reason,
  message,
});

/**
 * Runs on a schema-valid winning ticket every check the TicketBroker's `redeemWinningTicket` makes that
 * needs no chain state, in the contract's order: non-zero recipient and sender (`malformed`), the ticket
 * hash recomputed from the fields (`hash_mismatch`), keccak256(`recipientRand`) against
 * `recipientRandHash` (`recipient_rand_mismatch`), the signature recovering to the sender under
 * `ECDSA.recover`'s rules (`invalid_signature`), and the win test (`not_winning`).
 */
export function checkWinningTicket(
  ticket: WinningTicket,
  verifier: SignatureVerifier = createSignatureVerifier({ cacheSize: 0 }),
): TicketCheckResult {
  if (ticket.recipient === ZERO_ADDRESS) return fail('malformed', 'recipient is the zero address');
  if (ticket.sender === ZERO_ADDRESS) return fail('malformed', 'sender is the zero address');
  if (computeTicketHash(ticket) !== ticket.ticketHash) {
    return fail('hash_mismatch', 'ticketHash is not the hash of the ticket fields');
  }
  if (computeRecipientRandHash(ticket.recipientRand) !== ticket.recipientRandHash) {
    return fail('recipient_rand_mismatch', 'recipientRand does not hash to recipientRandHash');
  }
  if (!verifier.isSignedBy(hexToBytes(ticket.ticketHash), ticket.sig, ticket.sender)) {
    return fail('invalid_signature', 'sig does not recover to the sender');
  }
  if (!isWinningTicket(ticket.sig, ticket.recipientRand, ticket.winProb)) {
    return fail('not_winning', 'the ticket does not pass the win test');
  }
  return { ok: true };
}
