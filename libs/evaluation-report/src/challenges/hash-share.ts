import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';

/**
 * The hash state after the fixed part of every preimage: a domain label, the run's 32-byte seed and the
 * Node session id. A share for another seed or session can never verify.
 */
export function sharePrefix(seed: Uint8Array, sessionId: string): Hash {
  const session = Buffer.from(sessionId, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(session.length);
  return createHash('sha256').update('sandbox-eval/v1/share\0').update(seed).update(length).update(session);
}

const counterBytes = Buffer.alloc(8);

/** sha256(prefix ‖ counter as 8 bytes big-endian). */
export function shareHash(prefix: Hash, counter: number): Buffer {
  counterBytes.writeBigUInt64BE(BigInt(counter));
  return prefix.copy().update(counterBytes).digest();
}

/** True when the hash is below the target 2^(256 − bits), i.e. starts with `bits` zero bits. */
export function meetsDifficulty(hash: Uint8Array, bits: number): boolean {
  let left = bits;
  for (const byte of hash) {
    if (left <= 0) return true;
    if (left >= 8) {
      if (byte !== 0) return false;
      left -= 8;
    } else return byte >> (8 - left) === 0;
  }
  return left <= 0;
}

/** The result of checking a share list: how many verified, and why the rest did not. */
export interface ShareCheck {
  valid: number;
  invalid: number;
  duplicates: number;
}

/** Checks each share with one hash; counters must be distinct safe integers. */
export function checkShares(
  seed: Uint8Array,
  sessionId: string,
  difficultyBits: number,
  counters: readonly number[],
): ShareCheck {
  const prefix = sharePrefix(seed, sessionId);
  const seen = new Set<number>();
  const result: ShareCheck = { valid: 0, invalid: 0, duplicates: 0 };
  for (const counter of counters) {
    if (seen.has(counter)) result.duplicates += 1;
    else if (!Number.isSafeInteger(counter) || counter < 0) result.invalid += 1;
    else if (meetsDifficulty(shareHash(prefix, counter), difficultyBits)) result.valid += 1;
    else result.invalid += 1;
    seen.add(counter);
  }
  return result;
}

/** Options of {@link findShares}. */
export interface FindSharesOptions {
  seed: Uint8Array;
  sessionId: string;
  difficultyBits: number;
  shares: number;
  /** Called every `sliceHashes` hashes; work stops when it returns true (the client went away). */
  shouldStop?: () => boolean;
  /** @defaultValue 20_000 */
  sliceHashes?: number;
}

/**
 * Searches counters from 0 up for `shares` shares on one core, yielding to the event loop between
 * slices so the server stays responsive. Returns the counters found (fewer when stopped).
 */
export async function findShares(
  options: FindSharesOptions,
): Promise<{ counters: number[]; hashes: number }> {
  const prefix = sharePrefix(options.seed, options.sessionId);
  const slice = options.sliceHashes ?? 20_000;
  const counters: number[] = [];
  let counter = 0;
  while (counters.length < options.shares) {
    const end = counter + slice;
    for (; counter < end && counters.length < options.shares; counter += 1) {
      if (meetsDifficulty(shareHash(prefix, counter), options.difficultyBits)) counters.push(counter);
    }
    if (options.shouldStop?.()) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { counters, hashes: counter };
}
