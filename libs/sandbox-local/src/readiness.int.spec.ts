import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from './clock';
import type { Clock } from './clock';
import { FAST_PROBE_MS, FAST_WINDOW_MS, NotReadyError, probeOnce, waitForReady } from './readiness';

/** A clock whose sleeps return at once and move time on, recording each pause. */
function steppingClock(): Clock & { pauses: number[] } {
  let now = 0;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => now,
    sleep: async (ms) => {
      pauses.push(ms);
      now += ms;
    },
  };
}

let server: Server;
let port = 0;
let healthy = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.statusCode = req.url === '/healthz' && healthy ? 200 : 503;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('readiness probes (loopback)', () => {
  const target = () => ({ address: '127.0.0.1', port });

  it('passes an HTTP check only on the expected status', async () => {
    healthy = false;
    expect(await probeOnce(target(), { type: 'http', path: '/healthz', expectedStatus: 200 })).toBe(false);
    expect(await probeOnce(target(), { type: 'http', path: '/healthz', expectedStatus: 503 })).toBe(true);
  });

  it('passes a TCP check on connect and fails on a closed port', async () => {
    expect(await probeOnce(target(), { type: 'tcp' })).toBe(true);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await probeOnce({ address: '127.0.0.1', port: closedPort }, { type: 'tcp' })).toBe(false);
  });

  it('keeps polling until the app turns healthy', async () => {
    healthy = false;
    setTimeout(() => (healthy = true), 400);
    const result = await waitForReady(
      target(),
      { type: 'http', path: '/healthz', expectedStatus: 200 },
      { clock: systemClock },
    );
    expect(result.attempts).toBeGreaterThan(1);
  });

  it('gives up at the deadline, and early when the instance is gone', async () => {
    healthy = false;
    const check = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
    await expect(waitForReady(target(), check, { clock: systemClock, timeoutMs: 300 })).rejects.toMatchObject(
      { reason: 'timeout' },
    );
    const gone = waitForReady(target(), check, {
      clock: systemClock,
      timeoutMs: 10_000,
      isAlive: async () => false,
    });
    await expect(gone).rejects.toBeInstanceOf(NotReadyError);
    await expect(gone).rejects.toMatchObject({ reason: 'exited' });
  });

  it('probes every few ms during the first second, then backs off to the interval', async () => {
    healthy = false;
    const clock = steppingClock();
    const check = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
    await expect(
      waitForReady(target(), check, { clock, intervalMs: 100, timeoutMs: 1_500 }),
    ).rejects.toMatchObject({ reason: 'timeout' });
    const fast = clock.pauses.filter((pause) => pause === FAST_PROBE_MS).length;
    expect(fast).toBe(FAST_WINDOW_MS / FAST_PROBE_MS);
    expect(clock.pauses.slice(fast, fast + 5)).toEqual([20, 40, 80, 100, 100]);
  });

  it('keeps probing while a liveness answer is slow', async () => {
    healthy = false;
    const clock = steppingClock();
    let answer: (alive: boolean) => void = () => undefined;
    const asked = new Promise<boolean>((resolve) => (answer = resolve));
    const check = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
    const waiting = waitForReady(target(), check, { clock, timeoutMs: 600_000, isAlive: () => asked });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Past the first second the liveness question is pending, and attempts went on meanwhile.
    const attemptsWhileAsking = clock.pauses.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(clock.pauses.length).toBeGreaterThan(attemptsWhileAsking);
    answer(false);
    await expect(waiting).rejects.toMatchObject({ reason: 'exited' });
  });
});
