import type { WinningTicket } from '@sandbox/protocol';
import { hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { buildWinningTicket } from '@sandbox/tickets/testing';

export const RECIPIENT = '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115';

/** Test winners (win probability 1) from a few fixed payer keys; each call a new nonce and rand. */
export function makeTickets(seed: number) {
  const keys = [1, 2, 3].map((i) => hexToBytes((seed * 16 + i).toString(16).padStart(64, '0')));
  let nonce = 0;
  return (fields: { creationRound?: bigint; faceValue?: bigint; payer?: number } = {}): WinningTicket => {
    nonce += 1;
    return buildWinningTicket({
      senderKey: keys[(fields.payer ?? nonce) % keys.length] as Uint8Array,
      recipient: RECIPIENT,
      faceValue: fields.faceValue ?? 1_000n,
      winProb: MAX_UINT256,
      senderNonce: nonce,
      recipientRand: BigInt(seed) * 100_000n + BigInt(nonce),
      creationRound: fields.creationRound ?? 100n,
      creationRoundBlockHash: `0x${'77'.repeat(32)}`,
      paramsExpirationBlock: 1_000n,
    });
  };
}
