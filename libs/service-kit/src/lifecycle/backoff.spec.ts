import { describe, expect, it } from '@jest/globals';
import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('grows exponentially, caps, and stays within [d/2, d]', () => {
    const options = { initialMs: 100, maxMs: 1_000 };
    expect(backoffDelay(1, { ...options, random: () => 0 })).toBe(50);
    expect(backoffDelay(1, { ...options, random: () => 0.999_999 })).toBeCloseTo(100, 3);
    expect(backoffDelay(3, { ...options, random: () => 0 })).toBe(200);
    expect(backoffDelay(10, { ...options, random: () => 0.5 })).toBe(750);
    expect(backoffDelay(1_000, { ...options, random: () => 1 })).toBe(1_000);
  });
});

describe('backoffDelay without jitter', () => {
  it('is the nominal delay: doubling from the initial one, capped', () => {
    const options = { initialMs: 250, maxMs: 30_000, jitter: 'none' } as const;
    expect([1, 2, 3, 7, 8, 50].map((attempt) => backoffDelay(attempt, options))).toEqual([
      250, 500, 1_000, 16_000, 30_000, 30_000,
    ]);
    expect(backoffDelay(0, options)).toBe(250);
  });
});
