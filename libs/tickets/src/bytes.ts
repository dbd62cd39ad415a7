import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex as rawHex, concatBytes, hexToBytes as rawBytes } from '@noble/hashes/utils.js';

/** 2^256 - 1: the largest uint256, and the win probability of a ticket that always wins. */
export const MAX_UINT256 = (1n << 256n) - 1n;

/** Bytes of a `0x`-prefixed (or bare) hex string; throws on odd length or a non-hex digit. */
export function hexToBytes(hex: string): Uint8Array {
  return rawBytes(hex.startsWith('0x') ? hex.slice(2) : hex);
}

/** `0x`-prefixed lowercase hex, the spelling every schema of `@sandbox/protocol` uses. */
export function bytesToHex(bytes: Uint8Array): string {
  return `0x${rawHex(bytes)}`;
}

/** A uint256 as 32 big-endian bytes (Solidity's `abi.encodePacked` of a uint256). */
export function uint256Bytes(value: bigint): Uint8Array {
  if (value < 0n || value > MAX_UINT256) throw new RangeError('value does not fit in a uint256');
  return rawBytes(value.toString(16).padStart(64, '0'));
}

/** The unsigned big-endian integer of some bytes (0 for none). */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${rawHex(bytes)}`);
}

/** keccak256 (Ethereum's, not SHA3-256) of the concatenated parts. */
export function keccak256(...parts: Uint8Array[]): Uint8Array {
  return keccak_256(parts.length === 1 ? (parts[0] as Uint8Array) : concatBytes(...parts));
}
