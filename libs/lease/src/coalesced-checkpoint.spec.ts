import { describe, expect, it } from '@jest/globals';
import { coalescedCheckpoint } from './coalesced-checkpoint';
import type { LeaseElector, LeaseHolding } from './lease-elector';
import { NotLeaseHolderError } from './lease-errors';

function fakeElector() {
  let holding: LeaseHolding | undefined = { token: 1, holderId: 'a', value: '1 a' };
  const elector = {
    holding: () => holding,
    keys: { lease: 'spec:lease' },
    timings: { ttlMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 150 },
    redis: {},
  } as unknown as LeaseElector;
  return { elector, set: (next: LeaseHolding | undefined) => (holding = next) };
}

describe('a coalesced checkpoint', () => {
  it('proves the holding through the fence once per window and token', async () => {
    const { elector, set } = fakeElector();
    let time = 0;
    const proofs: number[] = [];
    const check = coalescedCheckpoint(elector, 'heartbeat', {
      now: () => time,
      checkpoint: async (lease) => void proofs.push(lease.holding()?.token ?? -1),
    });
    await Promise.all([check(), check(), check()]);
    expect(proofs).toEqual([1]);
    time = 149;
    await check();
    expect(proofs).toEqual([1]);
    time = 150;
    await check();
    expect(proofs).toEqual([1, 1]);
    // A new token is proven at once, whatever the window.
    set({ token: 2, holderId: 'a', value: '2 a' });
    await check();
    expect(proofs).toEqual([1, 1, 2]);
  });

  it('refuses at once, without Redis, once the holding is gone', async () => {
    const { elector, set } = fakeElector();
    let proofs = 0;
    const check = coalescedCheckpoint(elector, 'deliver', {
      now: () => 0,
      checkpoint: async () => void proofs++,
    });
    await check();
    set(undefined);
    await expect(check()).rejects.toBeInstanceOf(NotLeaseHolderError);
    expect(proofs).toBe(1);
  });

  it('does not count a refused proof: the next call tries the fence again', async () => {
    const { elector } = fakeElector();
    let calls = 0;
    const check = coalescedCheckpoint(elector, 'deliver', {
      now: () => 0,
      checkpoint: async () => {
        calls += 1;
        if (calls === 1) throw new Error('stale');
      },
    });
    await expect(check()).rejects.toThrow('stale');
    await check();
    expect(calls).toBe(2);
  });
});
