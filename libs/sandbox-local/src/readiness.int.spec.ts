import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monotonicClock } from '@sandbox/service-kit';
import { NotReadyError, probeOnce, waitForReady } from './readiness';

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
      { clock: monotonicClock },
    );
    expect(result.attempts).toBeGreaterThan(1);
  });

  it('gives up at the deadline, and early when the instance is gone', async () => {
    healthy = false;
    const check = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
    await expect(
      waitForReady(target(), check, { clock: monotonicClock, timeoutMs: 300 }),
    ).rejects.toMatchObject({ reason: 'timeout' });
    const gone = waitForReady(target(), check, {
      clock: monotonicClock,
      timeoutMs: 10_000,
      isAlive: async () => false,
    });
    await expect(gone).rejects.toBeInstanceOf(NotReadyError);
    await expect(gone).rejects.toMatchObject({ reason: 'exited' });
  });
});
