import { createCipheriv, createHash, timingSafeEqual } from 'node:crypto';
import type { Cipheriv } from 'node:crypto';

/** What a stream is for; each purpose gets its own key, so no two streams of a run share bytes. */
export type StreamPurpose = 'download' | 'upload';

const ZEROS = Buffer.alloc(256 * 1024);

/** The ChaCha20 key of a run's stream: sha256 of a purpose label and the 32-byte seed. */
function streamKey(seed: Uint8Array, purpose: StreamPurpose): Buffer {
  return createHash('sha256').update(`sandbox-eval/v1/${purpose}\0`).update(seed).digest();
}

/**
 * The ChaCha20 keystream of a seed (node:crypto, so OpenSSL's native code): random-looking bytes
 * that no compressor shrinks and no cache holds, which the other side can regenerate to check them.
 */
export class Keystream {
  private readonly cipher: Cipheriv;
  private produced = 0;

  constructor(seed: Uint8Array, purpose: StreamPurpose) {
    // node's chacha20 IV is a 4-byte little-endian block counter followed by a 12-byte nonce; the key is
    // unique per run and purpose, so a zero nonce and counter are safe.
    this.cipher = createCipheriv('chacha20', streamKey(seed, purpose), Buffer.alloc(16));
  }

  /** Bytes produced so far. */
  get offset(): number {
    return this.produced;
  }

  /** The next `length` bytes of the stream. */
  next(length: number): Buffer {
    const parts: Buffer[] = [];
    let left = length;
    while (left > 0) {
      const size = Math.min(left, ZEROS.length);
      parts.push(this.cipher.update(ZEROS.subarray(0, size)));
      left -= size;
    }
    this.produced += length;
    return Buffer.concat(parts, length);
  }
}

/** Checks received bytes against the keystream they must equal, chunk by chunk, in order. */
export class KeystreamChecker {
  private readonly expected: Keystream;
  private corrupt = false;

  constructor(seed: Uint8Array, purpose: StreamPurpose) {
    this.expected = new Keystream(seed, purpose);
  }

  /** False from the first byte that differs on. */
  check(chunk: Uint8Array): boolean {
    if (this.corrupt) return false;
    const want = this.expected.next(chunk.length);
    if (!timingSafeEqual(want, chunk)) this.corrupt = true;
    return !this.corrupt;
  }

  /** Bytes checked so far. */
  get bytes(): number {
    return this.expected.offset;
  }
}
