import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '@sandbox/testing';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { createLogger } from '../logging/logger';
import { createHealth } from './health';

describe('createHealth', () => {
  it('moves starting → ready → stopping and never back', async () => {
    const health = createHealth();
    expect(health.state).toBe('starting');
    expect((await health.readiness()).httpStatus).toBe(503);
    health.markReady();
    expect((await health.readiness()).httpStatus).toBe(200);
    health.markStopping();
    health.markReady();
    expect(health.state).toBe('stopping');
    expect(await health.readiness()).toEqual({ httpStatus: 503, report: { status: 'stopping', checks: [] } });
  });

  it('fails a check that returns false, throws or outlives its timeout, and aborts the timed-out one', async () => {
    const timers = new ManualClock(0);
    const out = memoryDestination();
    const health = createHealth({
      schedule: timers.schedule,
      logger: createLogger({ svc: 't', destination: out }),
    });
    let aborted = false;
    health.addReadinessCheck('false', () => false);
    health.addReadinessCheck('throws', () => Promise.reject(new Error('no route to host')));
    health.addReadinessCheck(
      'hangs',
      (signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
      {
        timeoutMs: 50,
      },
    );
    health.addReadinessCheck('passes', async () => undefined);
    health.markReady();
    const pending = health.readiness();
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers.pendingDelays()).toContain(50);
    timers.advance(50);
    const { httpStatus, report } = await pending;
    expect(httpStatus).toBe(503);
    expect(report.checks).toEqual([
      { name: 'false', status: 'fail' },
      { name: 'throws', status: 'fail' },
      { name: 'hangs', status: 'timeout' },
      { name: 'passes', status: 'pass' },
    ]);
    expect(aborted).toBe(true);
    expect(out.records().map((record) => record['msg'])).toEqual(
      expect.arrayContaining(['readiness check failed', 'readiness check timed out']),
    );
  });

  it('reports stopping when shutdown begins while checks run', async () => {
    const health = createHealth();
    let finish: () => void = () => undefined;
    health.addReadinessCheck('slow', () => new Promise<void>((resolve) => (finish = resolve)));
    health.markReady();
    const pending = health.readiness();
    await new Promise((resolve) => setImmediate(resolve));
    health.markStopping();
    finish();
    expect((await pending).httpStatus).toBe(503);
    expect((await pending).report.status).toBe('stopping');
  });

  it('refuses two checks with one name', () => {
    const health = createHealth();
    health.addReadinessCheck('redis', () => true);
    expect(() => health.addReadinessCheck('redis', () => true)).toThrow('already exists');
  });
});
