import { describe, expect, it } from '@jest/globals';
import { createFailureBackoff } from './failure-backoff';

describe('createFailureBackoff', () => {
  it('doubles the wait per failure up to the cap, per app', () => {
    const backoff = createFailureBackoff({ baseMs: 1_000, maxMs: 5_000 });
    expect(backoff.waitMs('a', 0)).toBe(0);
    backoff.failed('a', 'start', 0);
    expect(backoff.waitMs('a', 0)).toBe(1_000);
    backoff.failed('a', 'start', 0);
    backoff.failed('a', 'start', 0);
    expect(backoff.waitMs('a', 0)).toBe(4_000);
    backoff.failed('a', 'start', 0);
    expect(backoff.waitMs('a', 1_000)).toBe(4_000);
    expect(backoff.waitMs('b', 0)).toBe(0);
  });

  it('forgives start failures on ready and registration failures on a reservation', () => {
    const backoff = createFailureBackoff({ baseMs: 1_000 });
    backoff.failed('a', 'registration', 0);
    backoff.failed('a', 'registration', 0);
    backoff.forgive('a', 'start');
    backoff.failed('a', 'start', 10_000);
    expect(backoff.waitMs('a', 10_000)).toBe(2_000);
    backoff.forgive('a', 'all');
    expect(backoff.waitMs('a', 10_000)).toBe(0);
  });
});
