import type { WinningTicket } from '@sandbox/protocol';
import { BoundedMemo } from '@sandbox/service-kit';
import { checkWinningTicket, type SignatureVerifier, type TicketCheckResult } from '@sandbox/tickets';

/** The contract's checks of a ticket that need no chain state (`checkWinningTicket`). */
export type TicketChecker = (ticket: WinningTicket) => TicketCheckResult;

/**
 * `checkWinningTicket` on `verifier` with up to `size` verdicts remembered. The simulator checks each
 * ticket when it is delivered and again when it is redeemed (as the contract would); a verdict depends
 * only on the ticket's fields, so the second check reuses the first instead of hashing the ticket and
 * recovering its signature again (the keccak hashes alone cost about as much as the recovery).
 */
export function rememberChecks(verifier: SignatureVerifier, size: number): TicketChecker {
  const verdicts = new BoundedMemo<TicketCheckResult>(size);
  return (ticket) => {
    // Every field, so another value anywhere is another question.
    const key = JSON.stringify(ticket);
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = checkWinningTicket(ticket, verifier);
      verdicts.set(key, verdict);
    }
    return verdict;
  };
}
