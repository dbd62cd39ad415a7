import type { WinningTicket } from '@sandbox/protocol';
import {
  computeRecipientRandHash,
  hexToBytes,
  isWinningTicket,
  keccak256,
  recoverEthSigner,
} from '@sandbox/tickets';
import type { Rational } from '../go/rational';
import { add } from '../go/rational';
import type { PaymentEngine, PaymentRefusal, PaymentSession } from './payment-engine';
import {
  expectedValue,
  isSignedBySender,
  recipientRandHex,
  ticketFromParams,
  toWinningTicket,
} from './ticket';
import type { WirePayment, WireSegment } from './wire';
import { decodeBlob, WirePaymentSchema, WireSegmentSchema } from './wire';

const INVALID: PaymentRefusal = { kind: 'invalid', message: 'invalid payment' };

/** A batch that passed every check, ready to be stored and credited. */
export interface CheckedPayment {
  session: PaymentSession;
  winners: WinningTicket[];
  nonces: number[];
  randKey: string;
  balance: Rational;
}

/** Node's `ManifestFromSegment`: the session id the payer signed for, or `undefined`. */
export function manifestFromSegment(segment: string): string | undefined {
  const decoded = decodeBlob(WireSegmentSchema, segment);
  if (!decoded || decoded.auth.sessionId === '' || decoded.manifestId !== decoded.auth.sessionId)
    return undefined;
  return decoded.auth.sessionId;
}

/** The digest a payer signs in `Livepeer-Segment`: keccak256(manifest ‖ 32 zero bytes ‖ hash). */
export function segmentDigest(manifest: string, hash: string): Uint8Array {
  return keccak256(new TextEncoder().encode(manifest), new Uint8Array(32), hexToBytes(hash));
}

function scopeValid(
  engine: PaymentEngine,
  session: PaymentSession,
  runner: string,
  payment: WirePayment,
  segment: WireSegment,
): boolean {
  const params = payment.ticketParams;
  const round = engine.chain.round();
  const creationRound = BigInt(params.creationRound);
  return (
    session.runner === runner &&
    session.payer === payment.sender.toLowerCase() &&
    payment.expectedPrice.pricePerUnit === session.price.pricePerUnit &&
    payment.expectedPrice.unitsPerPrice === session.price.unitsPerPrice &&
    params.recipient === engine.config.recipient &&
    engine.secrets.validAuth(segment.auth, engine.clock.now()) &&
    payment.senderParams.length >= 1 &&
    payment.senderParams.length <= 100 &&
    recoverEthSigner(segmentDigest(segment.manifestId, segment.hash), segment.signature) === session.payer &&
    creationRound >= round - 2n &&
    creationRound <= round &&
    BigInt(params.expirationBlock) > engine.chain.block()
  );
}

/**
 * Every check of Node's `Receive` before anything is stored: scope, auth token, payer signature,
 * recipient randomness re-derived from the params, ticket nonces (1–599, unused), ticket signatures.
 */
export function validatePayment(
  engine: PaymentEngine,
  runner: string,
  manifest: string,
  paymentHeader: string,
  segmentHeader: string,
): CheckedPayment | PaymentRefusal {
  const payment = decodeBlob(WirePaymentSchema, paymentHeader);
  const segment = decodeBlob(WireSegmentSchema, segmentHeader);
  if (!payment || !segment || segment.manifestId !== manifest || segment.auth.sessionId !== manifest)
    return INVALID;
  if (
    hexToBytes(payment.sender).length !== 20 ||
    hexToBytes(segment.hash).length !== 32 ||
    hexToBytes(segment.signature).length !== 65
  )
    return INVALID;
  const session = engine.sessions.get(manifest);
  if (!session) return { kind: 'missing', message: 'payment challenge not found' };
  if (!scopeValid(engine, session, runner, payment, segment)) return INVALID;
  const params = payment.ticketParams;
  const rand = engine.secrets.recipientRand({
    seed: params.seed,
    payer: payment.sender,
    faceValue: BigInt(params.faceValue),
    winProb: BigInt(params.winProb),
    expirationBlock: BigInt(params.expirationBlock),
    price: session.price,
    round: BigInt(params.creationRound),
    roundHash: params.creationRoundBlockHash,
  });
  if (computeRecipientRandHash(rand) !== params.recipientRandHash) return INVALID;
  const randHex = recipientRandHex(rand);
  const seen = engine.nonces.get(params.recipientRandHash);
  const nonces: number[] = [];
  const winners: WinningTicket[] = [];
  let balance = session.balance;
  for (const { senderNonce, sig } of payment.senderParams) {
    if (
      senderNonce === 0 ||
      senderNonce >= 600 ||
      hexToBytes(sig).length !== 65 ||
      nonces.includes(senderNonce) ||
      seen?.has(senderNonce)
    )
      return INVALID;
    const ticket = ticketFromParams(params, payment.sender.toLowerCase(), senderNonce);
    if (!isSignedBySender(ticket, sig)) return INVALID;
    nonces.push(senderNonce);
    balance = add(balance, expectedValue(ticket.faceValue, ticket.winProb));
    if (isWinningTicket(sig, randHex, ticket.winProb)) winners.push(toWinningTicket(ticket, sig, rand));
  }
  return { session, winners, nonces, randKey: params.recipientRandHash, balance };
}
