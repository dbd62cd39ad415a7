import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { bytesToBigInt, bytesToHex, hexToBytes, keccak256 } from './bytes';

const { Point } = secp256k1;
type CurvePoint = InstanceType<typeof Point>;

/** The order n of secp256k1's group. */
export const SECP256K1_N = Point.Fn.ORDER;
const HALF_N = SECP256K1_N >> 1n;

/**
 * go-ethereum's `accounts.TextHash` (EIP-191 personal message): keccak256 of
 * `"\x19Ethereum Signed Message:\n" + len(message)` and the message. Tickets are signed over this
 * form of their 32-byte hash, as the contract's `ECDSA.toEthSignedMessageHash` expects.
 */
export function ethSignedMessageHash(message: Uint8Array): Uint8Array {
  return keccak256(utf8ToBytes(`\x19Ethereum Signed Message:\n${message.length}`), message);
}

/** The lowercase `0x` address of an uncompressed or compressed secp256k1 public key. */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = Point.fromBytes(publicKey).toBytes(false);
  return bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12));
}

/** The lowercase `0x` address of a 32-byte secp256k1 private key. */
export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return addressOfPublicKey(secp256k1.getPublicKey(privateKey, false));
}

/**
 * Signs a 32-byte hash (a ticket hash) the way Livepeer senders do: ECDSA with deterministic nonces
 * over {@link ethSignedMessageHash}, low `s`, as `r ‖ s ‖ v` with `v` 27 or 28. Returns `0x` hex.
 */
export function signEthMessage(message: Uint8Array, privateKey: Uint8Array): string {
  const recovered = secp256k1.sign(ethSignedMessageHash(message), privateKey, {
    prehash: false,
    format: 'recovered',
  });
  const sig = new Uint8Array(65);
  sig.set(recovered.subarray(1), 0);
  sig[64] = (recovered[0] ?? 0) + 27;
  return bytesToHex(sig);
}

/** The parts of a signature the contract accepts, or undefined when `ECDSA.recover` would refuse it. */
export interface SignatureParts {
  readonly r: bigint;
  readonly s: bigint;
  /** 0 or 1: the parity of the y coordinate of the nonce point (`v - 27`). */
  readonly recovery: 0 | 1;
}

/**
 * Splits a 65-byte `r ‖ s ‖ v` signature, applying the rules of OpenZeppelin's `ECDSA.recover` that
 * the TicketBroker uses: `v` is 27 or 28, `s` is in the lower half of the order (no malleable twin),
 * and `r`, `s` are non-zero and below the order.
 */
export function parseSignature(sig: Uint8Array): SignatureParts | undefined {
  if (sig.length !== 65) return undefined;
  const v = sig[64];
  if (v !== 27 && v !== 28) return undefined;
  const r = bytesToBigInt(sig.subarray(0, 32));
  const s = bytesToBigInt(sig.subarray(32, 64));
  if (r === 0n || r >= SECP256K1_N || s === 0n || s > HALF_N) return undefined;
  return { r, s, recovery: v === 27 ? 0 : 1 };
}

/** The public key point that signed `digest`, or undefined when the signature recovers nothing. */
export function recoverPublicKeyPoint(digest: Uint8Array, parts: SignatureParts): CurvePoint | undefined {
  const compact = new Uint8Array(65);
  compact[0] = parts.recovery;
  compact.set(hexToBytes(parts.r.toString(16).padStart(64, '0')), 1);
  compact.set(hexToBytes(parts.s.toString(16).padStart(64, '0')), 33);
  try {
    return Point.fromBytes(secp256k1.recoverPublicKey(compact, digest, { prehash: false }));
  } catch {
    return undefined;
  }
}

/**
 * The lowercase address that signed the eth-signed-message form of `message` with `sig` (`0x` hex),
 * as the contract's `ECDSA.recover` computes it; undefined for any signature it would refuse.
 */
export function recoverEthSigner(message: Uint8Array, sig: string): string | undefined {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(sig);
  } catch {
    return undefined;
  }
  const parts = parseSignature(bytes);
  if (!parts) return undefined;
  const point = recoverPublicKeyPoint(ethSignedMessageHash(message), parts);
  return point ? addressOfPublicKey(point.toBytes(false)) : undefined;
}

/**
 * True when `point` is the key that produced `parts` over `digest` with exactly that recovery bit, i.e.
 * when recovery would return `point`. Instead of recovering, it computes the nonce point
 * R = (z/s)·G + (r/s)·P and checks R.x = r and the parity of R.y; with P's multiples precomputed that
 * costs about a third of a recovery.
 */
export function signedByPoint(digest: Uint8Array, parts: SignatureParts, point: CurvePoint): boolean {
  const { Fn } = Point;
  const z = Fn.create(bytesToBigInt(digest));
  const sInverse = Fn.inv(parts.s);
  const nonce = Point.BASE.multiplyUnsafe(Fn.mul(z, sInverse)).add(
    point.multiplyUnsafe(Fn.mul(parts.r, sInverse)),
  );
  if (nonce.is0()) return false;
  const affine = nonce.toAffine();
  return affine.x === parts.r && Number(affine.y & 1n) === parts.recovery;
}
