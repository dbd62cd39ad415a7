import type { WinningTicket } from '@sandbox/protocol';
import { hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { buildWinningTicket } from '@sandbox/tickets/testing';

/** 12 s blocks, 5760-block rounds from the epoch: the round view of node-sim, the handoff and the sim. */
export function currentRound(now = Date.now()): bigint {
  return BigInt(Math.floor(now / 12_000)) / 5_760n;
}

/** Options of {@link ticketFactory}. */
export interface TicketFactoryOptions {
  /** Sender keys are derived from this seed (one key per payer). */
  readonly seed: number;
  readonly payers?: number;
  readonly recipient?: string;
  readonly faceValue?: bigint;
}

/**
 * Makes valid, distinct winning tickets (win probability 1) for tests and benchmarks, cycling through a
 * few payers. Each call returns a new ticket.
 */
export function ticketFactory(
  options: TicketFactoryOptions,
): (overrides?: { creationRound?: bigint }) => WinningTicket {
  const payers = options.payers ?? 3;
  const keys = Array.from({ length: payers }, (_, i) =>
    hexToBytes(((options.seed * 1_000 + i + 1) >>> 0).toString(16).padStart(64, '0')),
  );
  let nonce = 0;
  return (overrides = {}) => {
    nonce += 1;
    return buildWinningTicket({
      senderKey: keys[nonce % payers] as Uint8Array,
      recipient: options.recipient ?? '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115',
      faceValue: options.faceValue ?? 1_000_000_000_000_000n,
      winProb: MAX_UINT256,
      senderNonce: (nonce % 500) + 1,
      recipientRand: BigInt(options.seed) * 1_000_000_007n + BigInt(nonce),
      creationRound: overrides.creationRound ?? currentRound(),
      creationRoundBlockHash: `0x${'5a'.repeat(32)}`,
      paramsExpirationBlock: BigInt(Math.floor(Date.now() / 12_000) + 40),
    });
  };
}
