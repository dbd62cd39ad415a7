import type { WinningTicket } from '@sandbox/protocol';
import {
  bytesToHex,
  computeTicketHash,
  hexToBytes,
  MAX_UINT256,
  recoverEthSigner,
  uint256Bytes,
} from '@sandbox/tickets';
import { signEthMessage } from '@sandbox/tickets/testing';
import type { Rational } from '../go/rational';
import type { WireTicketParams } from './wire';

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

/** The ticket a sender writes from an orchestrator's advertised params (go-livepeer `pm.NewTicket`). */
export function ticketFromParams(params: WireTicketParams, sender: string, senderNonce: number): Ticket {
  return {
    recipient: params.recipient,
    sender,
    faceValue: BigInt(params.faceValue),
    winProb: BigInt(params.winProb),
    senderNonce,
    recipientRandHash: params.recipientRandHash,
    creationRound: BigInt(params.creationRound),
    creationRoundBlockHash: params.creationRoundBlockHash,
    paramsExpirationBlock: BigInt(params.expirationBlock),
  };
}

/** The sender's signature (`0x` hex) over the eth-signed-message form of the ticket hash. */
export function signTicket(ticket: Ticket, senderKey: Uint8Array): string {
  return signEthMessage(hexToBytes(computeTicketHash(ticket)), senderKey);
}

/** True when `sig` (`0x` hex) over the ticket hash recovers to the ticket's sender. */
export function isSignedBySender(ticket: Ticket, sig: string): boolean {
  return recoverEthSigner(hexToBytes(computeTicketHash(ticket)), sig) === ticket.sender.toLowerCase();
}

/** Expected value of one ticket in wei: faceValue × winProb / (2^256 - 1). */
export function expectedValue(faceValue: bigint, winProb: bigint): Rational {
  return { num: faceValue * winProb, den: MAX_UINT256 };
}

/** `recipientRand` as the protocol spells it: 32 bytes of `0x` hex. */
export function recipientRandHex(recipientRand: bigint): string {
  return bytesToHex(uint256Bytes(recipientRand));
}

/** The record a redeemer needs (`redeemWinningTicket(ticket, sig, recipientRand)`). */
export function toWinningTicket(ticket: Ticket, sig: string, recipientRand: bigint): WinningTicket {
  return {
    ticketHash: computeTicketHash(ticket),
    recipient: ticket.recipient.toLowerCase(),
    sender: ticket.sender.toLowerCase(),
    faceValue: ticket.faceValue.toString(),
    winProb: ticket.winProb.toString(),
    senderNonce: String(ticket.senderNonce),
    recipientRandHash: ticket.recipientRandHash.toLowerCase(),
    creationRound: ticket.creationRound.toString(),
    creationRoundBlockHash: ticket.creationRoundBlockHash.toLowerCase(),
    paramsExpirationBlock: ticket.paramsExpirationBlock.toString(),
    sig: sig.toLowerCase(),
    recipientRand: recipientRandHex(recipientRand),
  };
}
