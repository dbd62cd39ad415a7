import type { WinningTicket } from '@sandbox/protocol';
import { bytesToHex, hexToBytes, uint256Bytes } from './bytes';
import { addressOfPrivateKey, signEthMessage } from './eth-signature';
import { computeRecipientRandHash, computeTicketHash } from './ticket-hash';

/** What {@link buildWinningTicket} needs: the sender's key, the ticket's fields and the secret rand. */
export interface BuildTicketInput {
  /** The sender's 32-byte secp256k1 private key; the sender address is derived from it. */
  readonly senderKey: Uint8Array;
  readonly recipient: string;
  readonly faceValue: bigint;
  readonly winProb: bigint;
  readonly senderNonce: number;
  readonly recipientRand: bigint;
  readonly creationRound: bigint;
  readonly creationRoundBlockHash: string;
  readonly paramsExpirationBlock: bigint;
}

/**
 * A complete, signed ticket in the protocol's encoding (hash, `recipientRandHash` and signature
 * computed here). It is a winner only if its signature passes the win test, which
 * `winProb` = 2^256 - 1 guarantees. For simulators, tests and benchmarks.
 */
export function buildWinningTicket(input: BuildTicketInput): WinningTicket {
  const fields = {
    recipient: input.recipient.toLowerCase(),
    sender: addressOfPrivateKey(input.senderKey),
    faceValue: input.faceValue.toString(),
    winProb: input.winProb.toString(),
    senderNonce: String(input.senderNonce),
    recipientRandHash: computeRecipientRandHash(input.recipientRand),
    creationRound: input.creationRound.toString(),
    creationRoundBlockHash: input.creationRoundBlockHash.toLowerCase(),
  };
  const ticketHash = computeTicketHash(fields);
  return {
    ticketHash,
    ...fields,
    paramsExpirationBlock: input.paramsExpirationBlock.toString(),
    sig: signEthMessage(hexToBytes(ticketHash), input.senderKey),
    recipientRand: bytesToHex(uint256Bytes(input.recipientRand)),
  };
}
