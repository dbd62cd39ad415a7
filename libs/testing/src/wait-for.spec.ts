import { describe, expect, it } from '@jest/globals';
import { uniquePrefix } from './unique-prefix';
import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('resolves with the first truthy value, treating throws as "not yet"', async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls += 1;
        if (calls === 1) throw new Error('not ready');
        return calls >= 3 ? { calls } : undefined;
      },
      { description: 'three calls', intervalMs: 1 },
    );
    expect(value).toEqual({ calls: 3 });
  });

  it('fails with the description and the last error after the deadline', async () => {
    const waiting = waitFor(
      () => {
        throw new Error('still booting');
      },
      { description: 'the moon', timeoutMs: 30, intervalMs: 5 },
    );
    await expect(waiting).rejects.toThrow(/waiting for the moon; last error: still booting/);
  });
});

describe('uniquePrefix', () => {
  it('is distinct per call and safe as a BullMQ queue name', () => {
    const a = uniquePrefix('My Queue: test');
    const b = uniquePrefix('My Queue: test');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^my-queue-test-[0-9a-f]{12}$/);
  });
});
