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
