import type { WinningTicket } from '@sandbox/protocol';
import { checkWinningTicket, type SignatureVerifier, type TicketCheckResult } from '@sandbox/tickets';

/** The contract's checks of a ticket that need no chain state (`checkWinningTicket`). */
export type TicketChecker = (ticket: WinningTicket) => TicketCheckResult;

/**
 * `checkWinningTicket` on `verifier` with its last `size` verdicts remembered. The simulator checks each
 * ticket when it is delivered and again when it is redeemed (as the contract would); a verdict depends
 * only on the ticket's fields, so the second check reuses the first instead of hashing the ticket and
 * recovering its signature again (the keccak hashes alone cost about as much as the recovery).
 */
export function rememberChecks(verifier: SignatureVerifier, size: number): TicketChecker {
  const verdicts = new Map<string, TicketCheckResult>();
  return (ticket) => {
    // Every field, so another value anywhere is another question.
    const key = JSON.stringify(ticket);
    const known = verdicts.get(key);
    if (known !== undefined) return known;
    const verdict = checkWinningTicket(ticket, verifier);
    verdicts.set(key, verdict);
    // Map keeps insertion order: the first key is the oldest.
    if (verdicts.size > size) verdicts.delete(verdicts.keys().next().value as string);
    return verdict;
  };
}
