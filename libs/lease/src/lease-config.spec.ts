import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { checkLeaseTimings, leaseEnvFields, leaseSettings } from './lease-config';
import { LeaseConfigError } from './lease-errors';

const schema = z.object(leaseEnvFields());

describe('lease config', () => {
  it('defaults to 15 s TTL, 10 s renew deadline, 2 s retry period and a unique holder id', () => {
    const first = leaseSettings(schema.parse({}));
    expect(first.timings).toEqual({ ttlMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(first.holderId).not.toBe(leaseSettings(schema.parse({})).holderId);
  });

  it('takes the holder id (the pod name) and timings from the environment', () => {
    const env = schema.parse({
      LEASE_TTL_MS: '900',
      LEASE_RENEW_DEADLINE_MS: '600',
      LEASE_RETRY_PERIOD_MS: '100',
      LEASE_HOLDER_ID: 'im-0',
    });
    expect(leaseSettings(env)).toEqual({
      timings: { ttlMs: 900, renewDeadlineMs: 600, retryPeriodMs: 100 },
      holderId: 'im-0',
    });
  });

  it('refuses a renew deadline that leaves no time before the TTL, and a retry period past the deadline', () => {
    expect(() => checkLeaseTimings({ ttlMs: 1000, renewDeadlineMs: 1000, retryPeriodMs: 100 })).toThrow(
      LeaseConfigError,
    );
    expect(() => checkLeaseTimings({ ttlMs: 1000, renewDeadlineMs: 500, retryPeriodMs: 500 })).toThrow(
      /RETRY_PERIOD/,
    );
    expect(schema.safeParse({ LEASE_HOLDER_ID: 'has space' }).success).toBe(false);
  });
});
