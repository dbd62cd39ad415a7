import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadinessPlan } from './pod-plan';
import { probeOnce, readinessTracker } from './probe';

let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const status = Number(req.url?.slice(1)) || 200;
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function plan(check: ReadinessPlan['check'], overrides: Partial<ReadinessPlan> = {}): ReadinessPlan {
  return {
    check,
    port,
    initialDelayMs: 0,
    periodMs: 1_000,
    timeoutMs: 1_000,
    successThreshold: 1,
    failureThreshold: 3,
    ...overrides,
  };
}

describe('probeOnce', () => {
  it.each([
    ['/200', true],
    ['/302', true],
    ['/404', false],
    ['/503', false],
  ])('treats GET %s as success: %s', async (path, ok) => {
    expect(await probeOnce('127.0.0.1', plan({ type: 'http', path }))).toBe(ok);
  });

  it('connects for a TCP probe, and fails on a closed port', async () => {
    expect(await probeOnce('127.0.0.1', plan({ type: 'tcp' }))).toBe(true);
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(free));
      });
    });
    expect(await probeOnce('127.0.0.1', plan({ type: 'tcp' }, { port: closed }))).toBe(false);
  });
});

describe('readinessTracker', () => {
  it('needs successThreshold successes to become ready and failureThreshold failures to stop', () => {
    const tracker = readinessTracker({ successThreshold: 2, failureThreshold: 2 });
    expect([true, false, true, true].map((ok) => tracker.record(ok))).toEqual([false, false, false, true]);
    expect([false, true, false, false].map((ok) => tracker.record(ok))).toEqual([true, true, true, false]);
  });
});
