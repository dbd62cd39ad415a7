import type { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes, keccak256 } from './bytes';
import {
  addressOfPublicKey,
  ethSignedMessageHash,
  parseSignature,
  recoverPublicKeyPoint,
  signedByPoint,
  type SignatureParts,
} from './eth-signature';
import { loadNativeRecover, type NativeRecover } from './native-recovery';

type CurvePoint = InstanceType<typeof secp256k1.Point>;

/** Which curve implementation checks signatures. */
export type SignatureBackend = 'libsecp256k1' | 'noble';

/** Options of {@link createSignatureVerifier}. */
export interface SignatureVerifierOptions {
  /**
   * `libsecp256k1` (native, about 20 times faster) or `noble` (pure JS); `auto` takes libsecp256k1 where
   * its prebuilt binary loads on this platform and noble elsewhere. Asking for `libsecp256k1` where it
   * does not load throws. @defaultValue 'auto'
   */
  backend?: SignatureBackend | 'auto';
  /**
   * noble only: how many senders' public keys (with precomputed multiples, about 350 KB each) are
   * kept, least recently used first out. @defaultValue 64
   */
  cacheSize?: number;
  /** noble only: wNAF window of the precomputed multiples. @defaultValue 6 */
  windowBits?: number;
}

/** Checks ticket signatures against their sender. */
export interface SignatureVerifier {
  /**
   * True when `sig` (`0x` hex, 65 bytes) over the eth-signed-message form of `message` recovers to
   * `address`, under the contract's rules (`v` 27/28, low `s`).
   */
  isSignedBy(message: Uint8Array, sig: string, address: string): boolean;
  /** The implementation in use (services log it at start-up). */
  readonly backend: SignatureBackend;
  /** Number of remembered senders (always 0 on libsecp256k1, which needs no cache). */
  readonly size: number;
}

type PartsCheck = (digest: Uint8Array, sig: Uint8Array, parts: SignatureParts, owner: string) => boolean;

/**
 * Creates a {@link SignatureVerifier}. Both backends apply the contract's signature rules
 * ({@link parseSignature}) first and then differ only in how the signer is found.
 */
export function createSignatureVerifier(options: SignatureVerifierOptions = {}): SignatureVerifier {
  const backend = options.backend ?? 'auto';
  const native = backend === 'noble' ? undefined : loadNativeRecover();
  if (backend === 'libsecp256k1' && !native) {
    throw new Error(
      'the libsecp256k1 binding (npm package secp256k1) has no prebuilt binary for this platform',
    );
  }
  const { check, size } = native ? { check: nativeCheck(native), size: () => 0 } : createNobleCheck(options);
  return {
    isSignedBy(message, sig, address) {
      let bytes: Uint8Array;
      try {
        bytes = hexToBytes(sig);
      } catch {
        return false;
      }
      const parts = parseSignature(bytes);
      if (!parts) return false;
      return check(ethSignedMessageHash(message), bytes, parts, address.toLowerCase());
    },
    backend: native ? 'libsecp256k1' : 'noble',
    get size() {
      return size();
    },
  };
}

function nativeCheck(recover: NativeRecover): PartsCheck {
  return (digest, sig, parts, owner) => {
    const publicKey = recover(sig.subarray(0, 64), parts.recovery, digest);
    return publicKey !== undefined && bytesToHex(keccak256(publicKey.subarray(1)).subarray(12)) === owner;
  };
}

interface NobleCheck {
  check: PartsCheck;
  size: () => number;
}

/**
 * Intake sees many tickets from few payers (gateways), so on noble the first ticket of a payer pays for
 * a full public-key recovery and the rest a check against its remembered key, about three times faster.
 */
function createNobleCheck(options: SignatureVerifierOptions): NobleCheck {
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

  const check: PartsCheck = (digest, _sig, parts, owner) => {
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
  };
  return { check, size: () => keys.size };
}
