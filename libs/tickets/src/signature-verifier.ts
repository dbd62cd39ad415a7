import type { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from './bytes';
import {
  addressOfPublicKey,
  ethSignedMessageHash,
  parseSignature,
  recoverPublicKeyPoint,
  signedByPoint,
} from './eth-signature';

type CurvePoint = InstanceType<typeof secp256k1.Point>;

/** Options of {@link createSignatureVerifier}. */
export interface SignatureVerifierOptions {
  /**
   * How many senders' public keys (with precomputed multiples, about 350 KB each) are kept, least
   * recently used first out. @defaultValue 64
   */
  cacheSize?: number;
  /** wNAF window of the precomputed multiples. @defaultValue 6 */
  windowBits?: number;
}

/** Checks ticket signatures against their sender, remembering each sender's public key. */
export interface SignatureVerifier {
  /**
   * True when `sig` (`0x` hex, 65 bytes) over the eth-signed-message form of `message` recovers to
   * `address`, under the contract's rules (`v` 27/28, low `s`). Same answer as recovering and comparing,
   * but a sender seen before is checked against its remembered key, which is about three times faster.
   */
  isSignedBy(message: Uint8Array, sig: string, address: string): boolean;
  /** Number of remembered senders. */
  readonly size: number;
}

/**
 * Creates a {@link SignatureVerifier}. Intake sees many tickets from few payers (gateways), so the
 * first ticket of a payer pays for a full public-key recovery and the rest a cheaper check.
 */
export function createSignatureVerifier(options: SignatureVerifierOptions = {}): SignatureVerifier {
  const cacheSize = options.cacheSize ?? 64;
  const windowBits = options.windowBits ?? 6;
  const keys = new Map<string, CurvePoint>();

  const remember = (address: string, point: CurvePoint): void => {
    if (cacheSize <= 0) return;
    if (keys.size >= cacheSize) {
      const oldest = keys.keys().next();
      if (!oldest.done) keys.delete(oldest.value);
    }
    point.precompute(windowBits, true);
    keys.set(address, point);
  };

  return {
    isSignedBy(message, sig, address) {
      const owner = address.toLowerCase();
      let bytes: Uint8Array;
      try {
        bytes = hexToBytes(sig);
      } catch {
        return false;
      }
      const parts = parseSignature(bytes);
      if (!parts) return false;
      const digest = ethSignedMessageHash(message);
      const known = keys.get(owner);
      if (known) {
        // Refresh its place in the LRU order.
        keys.delete(owner);
        keys.set(owner, known);
        return signedByPoint(digest, parts, known);
      }
      const point = recoverPublicKeyPoint(digest, parts);
      if (!point || addressOfPublicKey(point.toBytes(false)) !== owner) return false;
      remember(owner, point);
      return true;
    },
    get size() {
      return keys.size;
    },
  };
}
