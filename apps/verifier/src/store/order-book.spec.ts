import { describe, expect, it } from '@jest/globals';
import { fingerprintOf } from './order-book';

describe('fingerprintOf', () => {
  it('is one order whatever the field order, and another for another body', () => {
    const a = fingerprintOf({ target: { app: 'x', runnerId: 'r' }, evaluationsPerSession: 2 });
    expect(fingerprintOf({ evaluationsPerSession: 2, target: { runnerId: 'r', app: 'x' } })).toBe(a);
    expect(fingerprintOf({ target: { app: 'x', runnerId: 'r' } })).not.toBe(a);
  });
});
