import type { WinningTicket } from '@sandbox/protocol';
import { bytesToHex, hexToBytes, keccak256 } from '@sandbox/tickets';
import type { Decision, SenderFunds } from '../store/sim-store';
import type { TicketChecker } from './verdict-memo';

/** What the simulated TicketBroker knows when a ticket is considered. */
export interface ChainView {
  readonly block: bigint;
  readonly round: bigint;
  readonly validityRounds: bigint;
  readonly waitForParamsExpiry: boolean;
  readonly isUsed: boolean;
  readonly funds: SenderFunds;
}

/**
 * Decides what redeeming a ticket does now, as a careful redeemer in front of the TicketBroker would:
 * wait while its params are still accepted; `already_used` if the chain marks it used (checked before
 * signing, so no gas is wasted); `expired` once creationRound + validity <= current round; `rejected`
 * for anything the contract would revert on (bad ticket, unlocked sender); wait while the sender's
 * deposit and reserve cannot cover the face value (all-or-nothing redemption, livepeer/protocol#657);
 * otherwise submit, paying from the deposit first, then the reserve. Returns undefined to wait.
 */
export function decideRedemption(
  ticket: WinningTicket,
  chain: ChainView,
  check: TicketChecker,
): Omit<Decision, 'hash'> | undefined {
  if (chain.isUsed) return { outcome: 'already_used', submitted: false };
  if (BigInt(ticket.creationRound) + chain.validityRounds <= chain.round) {
    return { outcome: 'expired', reason: 'ticket is expired', submitted: false };
  }
  if (chain.waitForParamsExpiry && chain.block < BigInt(ticket.paramsExpirationBlock)) return undefined;
  const verdict = check(ticket);
  if (!verdict.ok) return { outcome: 'rejected', reason: verdict.reason, submitted: false };
  const { deposit, reserve, withdrawRound } = chain.funds;
  if (withdrawRound !== undefined && chain.round >= withdrawRound) {
    return { outcome: 'rejected', reason: 'sender is unlocked', submitted: false };
  }
  const faceValue = BigInt(ticket.faceValue);
  if (deposit + reserve < faceValue) return undefined;
  const fromDeposit = faceValue <= deposit ? faceValue : deposit;
  return {
    outcome: 'redeemed',
    paidWei: faceValue.toString(),
    txHash: bytesToHex(keccak256(hexToBytes(ticket.ticketHash), new TextEncoder().encode('redeemer-sim tx'))),
    submitted: true,
    funds: {
      sender: ticket.sender,
      deposit: deposit - fromDeposit,
      reserve: reserve - (faceValue - fromDeposit),
    },
  };
}
