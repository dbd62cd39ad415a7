import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { bytesToHex } from '@sandbox/tickets';
import type { WireAuth, WirePrice } from './wire';

/** Everything recipient randomness is bound to. */
export interface RandInputs {
  seed: string;
  payer: string;
  faceValue: bigint;
  winProb: bigint;
  expirationBlock: bigint;
  price: WirePrice;
  round: bigint;
  roundHash: string;
}

/**
 * The recipient's two process-lifetime HMAC keys (Node's `PaymentEngine.secret` and `authSecret`):
 * one derives ticket randomness from the params, the other signs challenge auth tokens. A restart
 * rotates both, so unpaid challenges and unredeemed randomness of a crashed process are void.
 */
export class RecipientSecrets {
  readonly #rand = randomBytes(32);
  readonly #auth = randomBytes(32);

  /** Re-derivable from the ticket params alone; any altered parameter yields another value. */
  recipientRand(inputs: RandInputs): bigint {
    const hmac = createHmac('sha256', this.#rand);
    const { seed, payer, faceValue, winProb, expirationBlock, price, round, roundHash } = inputs;
    const parts = [
      seed,
      payer.toLowerCase(),
      faceValue,
      winProb,
      expirationBlock,
      price.pricePerUnit,
      price.unitsPerPrice,
      round,
      roundHash,
    ];
    for (const part of parts) hmac.update(`${String(part)}|`);
    return BigInt(`0x${hmac.digest('hex')}`);
  }

  authToken(sessionId: string, expiration: number): WireAuth {
    const token = createHmac('sha256', this.#auth).update(`${sessionId}|${expiration}`).digest();
    return { sessionId, expiration, token: bytesToHex(token) };
  }

  /** A token this process issued for the session, not yet expired at `nowMs`. */
  validAuth(auth: WireAuth, nowMs: number): boolean {
    const expected = Buffer.from(this.authToken(auth.sessionId, auth.expiration).token.slice(2), 'hex');
    const given = Buffer.from(auth.token.slice(2), 'hex');
    const fresh = auth.sessionId !== '' && nowMs / 1000 <= auth.expiration;
    return fresh && given.length === expected.length && timingSafeEqual(given, expected);
  }
}
