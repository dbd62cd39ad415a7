import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** keccak256 of the concatenated parts. */
export function keccak(...parts: Uint8Array[]): Uint8Array {
  return keccak_256(concatBytes(...parts));
}

/** `0x`-prefixed lowercase hex. */
export function hex(bytes: Uint8Array): string {
  return `0x${bytesToHex(bytes)}`;
}

/** Bytes of `0x`-prefixed (or bare) hex. */
export function fromHex(text: string): Uint8Array {
  return hexToBytes(text.startsWith('0x') ? text.slice(2) : text);
}

/** A uint256 as 32 big-endian bytes. */
export function uint256(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 256n) throw new RangeError('uint256 out of range');
  return hexToBytes(value.toString(16).padStart(64, '0'));
}

export function bigFromBytes(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`);
}

/** The lowercase `0x` address of a secp256k1 private key. */
export function addressOf(privateKey: Uint8Array): string {
  return hex(keccak(secp256k1.getPublicKey(privateKey, false).slice(1)).slice(-20));
}

/** EIP-55 mixed-case form of an address (what Go's `Address.Hex()` prints). */
export function checksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/u, '');
  const digest = bytesToHex(keccak(utf8ToBytes(lower)));
  return `0x${[...lower].map((char, i) => (Number.parseInt(digest[i] ?? '0', 16) >= 8 ? char.toUpperCase() : char)).join('')}`;
}

/** go-ethereum's `accounts.TextHash`: keccak256 of the eth-signed-message prefix and the message. */
export function textHash(message: Uint8Array): Uint8Array {
  return keccak(utf8ToBytes(`\x19Ethereum Signed Message:\n${message.length}`), message);
}

/** An Ethereum signature (r ‖ s ‖ v, v = 27 or 28) over the eth-signed-message form of `message`. */
export function signMessage(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const recovered = secp256k1.sign(textHash(message), privateKey, { prehash: false, format: 'recovered' });
  return concatBytes(recovered.slice(1), new Uint8Array([(recovered[0] ?? 0) + 27]));
}

/** The lowercase address that produced an Ethereum signature over `message`, if the signature is well formed. */
export function recoverSigner(message: Uint8Array, signature: Uint8Array): string | undefined {
  const v = signature[64];
  if (signature.length !== 65 || (v !== 27 && v !== 28)) return undefined;
  try {
    const recovered = concatBytes(new Uint8Array([v - 27]), signature.slice(0, 64));
    const publicKey = secp256k1.recoverPublicKey(recovered, textHash(message), { prehash: false });
    const point = secp256k1.Point.fromBytes(publicKey).toBytes(false);
    return hex(keccak(point.slice(1)).slice(-20));
  } catch {
    return undefined;
  }
}
