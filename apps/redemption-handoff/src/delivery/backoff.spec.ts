import { describe, expect, it } from '@jest/globals';
import { retryDelay } from './backoff';

const base = { baseMs: 1_000, capMs: 60_000, now: 0, deadlineAt: 10_000_000 };

describe('retryDelay', () => {
  it('doubles per attempt with jitter in [half, full) of the ceiling', () => {
    expect(retryDelay({ ...base, attempts: 1, random: () => 0 })).toBe(500);
    expect(retryDelay({ ...base, attempts: 1, random: () => 0.999 })).toBe(999);
    expect(retryDelay({ ...base, attempts: 4, random: () => 0 })).toBe(4_000);
  });

  it('is capped', () => {
    expect(retryDelay({ ...base, attempts: 30, random: () => 0.999 })).toBeLessThan(60_000);
    expect(retryDelay({ ...base, attempts: 10_000, random: () => 0 })).toBe(30_000);
  });

  it('honours a Retry-After minimum', () => {
    expect(retryDelay({ ...base, attempts: 1, random: () => 0, minimumMs: 7_000 })).toBe(7_000);
  });

  it('never waits past the deadline, and retries at once when it passed', () => {
    expect(retryDelay({ ...base, attempts: 20, random: () => 0.5, deadlineAt: 1_234 })).toBe(1_234);
    expect(retryDelay({ ...base, attempts: 1, minimumMs: 9_999, deadlineAt: 100 })).toBe(100);
    expect(retryDelay({ ...base, attempts: 3, now: 500, deadlineAt: 100 })).toBe(1);
  });
});
