import { request } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import { NodeErrorMessage } from '@sandbox/protocol';
import { findFreePort } from '@sandbox/testing';
import type { SimFixture } from '../testing/sim-fixture';
import { BOOTSTRAP_SECRET, call, startSimFixture } from '../testing/sim-fixture';

let fx: SimFixture | undefined;
afterEach(async () => {
  await fx?.stop();
  fx = undefined;
});

describe('metrics listener', () => {
  it('serves /healthz, /readyz and /metrics like Node', async () => {
    fx = await startSimFixture();
    const health = await call(`${fx.sim.metricsUrl}/healthz`);
    const ready = await call(`${fx.sim.metricsUrl}/readyz`);
    const metrics = await call(`${fx.sim.metricsUrl}/metrics`);
    expect([health.status, health.text, ready.status, ready.text]).toEqual([200, 'ok\n', 200, 'ready\n']);
    expect([metrics.headers.get('content-type'), metrics.text]).toEqual([
      'text/plain; version=0.0.4',
      'livepeer_runners 0\nlivepeer_sessions 0\n',
    ]);
    expect((await call(`${fx.sim.metricsUrl}/other`)).status).toBe(404);
  });
});

describe('base paths', () => {
  it('serves under the service and runner base paths and advertises them', async () => {
    const port = await findFreePort();
    const origin = `http://127.0.0.1:${port}`;
    fx = await startSimFixture({
      listen: { host: '127.0.0.1', port },
      serviceUrl: `${origin}/public`,
      runnerServiceUrl: `${origin}/runners-side`,
    });
    const reg = await call(`${origin}/runners-side/runners/heartbeat`, {
      method: 'POST',
      headers: { Authorization: BOOTSTRAP_SECRET },
      body: JSON.stringify({ runner_id: 'b1', runner_url: 'http://10.1.1.1', app: 'a' }),
    });
    const body = reg.json<{ orchestrator: string; o2r: { url: string } }>();
    expect([
      reg.status,
      body.orchestrator,
      body.o2r.url.startsWith(`${origin}/runners-side/ai/trickle/`),
    ]).toEqual([200, `${origin}/runners-side`, true]);
    const discovery = await call(`${origin}/public/discovery`);
    expect(discovery.json()).toEqual([
      expect.objectContaining({
        address: `${origin}/public`,
        runners: [expect.objectContaining({ url: `${origin}/public/apps/b1/session` })],
      }),
    ]);
    expect((await call(`${body.o2r.url}/next`)).text).toBe('0');
    const outside = await call(`${origin}/discovery`);
    expect([outside.status, outside.json()]).toEqual([404, { error: NodeErrorMessage.RouteNotFound }]);
  });
});

describe('admission control', () => {
  it('answers 503 server busy once 64 control requests are in flight', async () => {
    fx = await startSimFixture();
    const { hostname, port } = new URL(fx.url);
    // Heartbeats whose bodies never finish hold their control slots.
    const stalled = Array.from({ length: 64 }, () => {
      const req = request({
        host: hostname,
        port,
        method: 'POST',
        path: '/runners/heartbeat',
        headers: { Authorization: BOOTSTRAP_SECRET, 'Content-Length': '100' },
      });
      req.on('error', () => undefined);
      req.write('{');
      return req;
    });
    let busy = await call(`${fx.url}/discovery`);
    for (let attempt = 0; busy.status !== 503 && attempt < 50; attempt += 1)
      busy = await call(`${fx.url}/discovery`);
    expect([busy.status, busy.json()]).toEqual([503, { error: NodeErrorMessage.ServerBusy }]);
    // Streaming requests have their own pool.
    expect((await call(`${fx.url}/apps/x/app`)).status).toBe(404);
    for (const req of stalled) req.destroy();
  });
});
