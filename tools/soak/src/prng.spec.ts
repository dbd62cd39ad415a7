import { describe, expect, it } from '@jest/globals';
import { createPrng, parseSeed } from './prng';

describe('createPrng', () => {
  it('replays the same sequence for the same seed and a different one for another', () => {
    const draw = (seed: number) => Array.from({ length: 20 }, createPrng(seed).next);
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('keeps floats in [0, 1) and integers within their bounds, reaching both ends', () => {
    const rng = createPrng(7);
    const ints = new Set<number>();
    for (let i = 0; i < 2_000; i += 1) {
      const x = rng.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      ints.add(rng.int(3, 6));
    }
    expect([...ints].sort()).toEqual([3, 4, 5, 6]);
  });

  it('refuses bad bounds and empty lists', () => {
    const rng = createPrng(1);
    expect(() => rng.int(5, 4)).toThrow('min <= max');
    expect(() => rng.pick([])).toThrow('empty');
    expect(rng.pick(['only'])).toBe('only');
  });
});

describe('parseSeed', () => {
  it('takes unsigned 32-bit integers only', () => {
    expect(parseSeed('0')).toBe(0);
    expect(parseSeed('4294967295')).toBe(4_294_967_295);
    expect(() => parseSeed('4294967296')).toThrow('--seed');
    expect(() => parseSeed('-1')).toThrow('--seed');
    expect(() => parseSeed('abc')).toThrow('--seed');
  });
});
