import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { checkShares, findShares, meetsDifficulty, shareHash, sharePrefix } from './hash-share';
import { Keystream, KeystreamChecker } from './keystream';

const seed = Buffer.alloc(32, 7);
const otherSeed = Buffer.alloc(32, 8);

describe('keystream', () => {
  it('is deterministic per seed and purpose, and independent of chunking', () => {
    const whole = new Keystream(seed, 'download').next(300_000);
    const parts = new Keystream(seed, 'download');
    expect(Buffer.concat([parts.next(1), parts.next(299_998), parts.next(1)])).toEqual(whole);
    expect(new Keystream(seed, 'upload').next(64)).not.toEqual(whole.subarray(0, 64));
    expect(new Keystream(otherSeed, 'download').next(64)).not.toEqual(whole.subarray(0, 64));
  });

  it('does not compress', () => {
    const bytes = new Keystream(seed, 'download').next(1_000_000);
    expect(gzipSync(bytes).length).toBeGreaterThan(bytes.length);
  });

  it('checks received bytes and stays failed after one altered byte', () => {
    const bytes = new Keystream(seed, 'download').next(10_000);
    const checker = new KeystreamChecker(seed, 'download');
    expect(checker.check(bytes.subarray(0, 5_000))).toBe(true);
    const altered = Buffer.from(bytes.subarray(5_000));
    altered[17] = (altered[17] ?? 0) ^ 1;
    expect(checker.check(altered)).toBe(false);
    expect(checker.check(Buffer.alloc(0))).toBe(false);
    expect(new KeystreamChecker(otherSeed, 'download').check(bytes)).toBe(false);
  });
});

describe('hash shares', () => {
  it('compares leading zero bits with the target', () => {
    expect(meetsDifficulty(Buffer.from([0x00, 0x0f, 0xff]), 12)).toBe(true);
    expect(meetsDifficulty(Buffer.from([0x00, 0x1f, 0xff]), 12)).toBe(false);
    expect(meetsDifficulty(Buffer.from([0x80]), 0)).toBe(true);
    expect(meetsDifficulty(Buffer.from([0x7f]), 1)).toBe(true);
    expect(meetsDifficulty(Buffer.from([0x00, 0x00]), 16)).toBe(true);
  });

  it('finds shares that verify with one hash each, only for their seed and session', async () => {
    const { counters, hashes } = await findShares({ seed, sessionId: 's-1', difficultyBits: 8, shares: 50 });
    expect(counters).toHaveLength(50);
    expect(hashes).toBeGreaterThanOrEqual(50);
    expect(checkShares(seed, 's-1', 8, counters)).toEqual({ valid: 50, invalid: 0, duplicates: 0 });
    expect(checkShares(seed, 's-2', 8, counters).invalid).toBeGreaterThan(40);
    expect(checkShares(otherSeed, 's-1', 8, counters).invalid).toBeGreaterThan(40);
  });

  it('counts wrong, repeated and out-of-range counters', async () => {
    const { counters } = await findShares({ seed, sessionId: 's-1', difficultyBits: 8, shares: 3 });
    const prefix = sharePrefix(seed, 's-1');
    let wrong = 0;
    while (meetsDifficulty(shareHash(prefix, wrong), 8)) wrong += 1;
    expect(checkShares(seed, 's-1', 8, [...counters, counters[0] ?? 0, wrong, -1, 2 ** 60])).toEqual({
      valid: 3,
      invalid: 3,
      duplicates: 1,
    });
  });

  it('stops when asked', async () => {
    const result = await findShares({
      seed,
      sessionId: 's-1',
      difficultyBits: 30,
      shares: 1,
      sliceHashes: 100,
      shouldStop: () => true,
    });
    expect(result).toEqual({ counters: [], hashes: 100 });
  });
});
