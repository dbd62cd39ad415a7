import type { WinningTicket } from '@sandbox/protocol';
import type { Rational } from '../go/rational';
import { bigFromBytes, fromHex, hex, keccak, recoverSigner, signMessage, uint256 } from './eth';

/** 2^256 - 1, the win probability of a ticket that always wins. */
export const MAX_WIN_PROB = (1n << 256n) - 1n;

/** The fields of a probabilistic-micropayment ticket (go-livepeer `pm.Ticket`). */
export interface Ticket {
  readonly recipient: string;
  readonly sender: string;
  readonly faceValue: bigint;
  readonly winProb: bigint;
  readonly senderNonce: number;
  readonly recipientRandHash: string;
  readonly creationRound: bigint;
  readonly creationRoundBlockHash: string;
  readonly paramsExpirationBlock: bigint;
}

/** keccak256(recipient ‖ sender ‖ faceValue ‖ winProb ‖ senderNonce ‖ recipientRandHash ‖ auxData). */
export function ticketHash(ticket: Ticket): Uint8Array {
  return keccak(
    fromHex(ticket.recipient),
    fromHex(ticket.sender),
    uint256(ticket.faceValue),
    uint256(ticket.winProb),
    uint256(BigInt(ticket.senderNonce)),
    fromHex(ticket.recipientRandHash),
    uint256(ticket.creationRound),
    fromHex(ticket.creationRoundBlockHash),
  );
}

/** The sender's signature over the eth-signed-message form of the ticket hash. */
export function signTicket(ticket: Ticket, senderKey: Uint8Array): Uint8Array {
  return signMessage(ticketHash(ticket), senderKey);
}

export function isSignedBySender(ticket: Ticket, sig: Uint8Array): boolean {
  return recoverSigner(ticketHash(ticket), sig) === ticket.sender.toLowerCase();
}

/** The win test of the contract: uint256(keccak256(sig ‖ recipientRand)) < winProb. */
export function isWinning(sig: Uint8Array, recipientRand: bigint, winProb: bigint): boolean {
  return bigFromBytes(keccak(sig, uint256(recipientRand))) < winProb;
}

/** Expected value of one ticket in wei: faceValue × winProb / (2^256 - 1). */
export function expectedValue(faceValue: bigint, winProb: bigint): Rational {
  return { num: faceValue * winProb, den: MAX_WIN_PROB };
}

/** The record a redeemer needs (`redeemWinningTicket(ticket, sig, recipientRand)`). */
export function toWinningTicket(ticket: Ticket, sig: Uint8Array, recipientRand: bigint): WinningTicket {
  return {
    ticketHash: hex(ticketHash(ticket)),
    recipient: ticket.recipient.toLowerCase(),
    sender: ticket.sender.toLowerCase(),
    faceValue: ticket.faceValue.toString(),
    winProb: ticket.winProb.toString(),
    senderNonce: String(ticket.senderNonce),
    recipientRandHash: ticket.recipientRandHash.toLowerCase(),
    creationRound: ticket.creationRound.toString(),
    creationRoundBlockHash: ticket.creationRoundBlockHash.toLowerCase(),
    paramsExpirationBlock: ticket.paramsExpirationBlock.toString(),
    sig: hex(sig),
    recipientRand: hex(uint256(recipientRand)),
  };
}
