import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscoveryResponseSchema, NodeErrorMessage, ReservationResponseSchema } from '@sandbox/protocol';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';
import type { SimFixture } from '../testing/sim-fixture';
import { call, heartbeat, register, startSimFixture } from '../testing/sim-fixture';

let app: RunnerApp;
let fx: SimFixture;
beforeAll(async () => {
  app = await startRunnerApp();
  fx = await startSimFixture({ runnerGrants: [app.grant] });
  await register(fx, {
    runner_id: 'p1',
    runner_url: `${app.url}/base`,
    app: 'echo',
    capacity: 2,
    version: 'v1',
  });
  await register(fx, {
    runner_id: 's1',
    runner_url: app.url,
    app: 'hello',
    mode: 'single-shot',
    capacity: 1,
  });
  await register(fx, { runner_id: 'px', runner_url: app.url, app: 'echo', proxy: true });
  await register(fx, {
    runner_id: 'spx',
    runner_url: app.url,
    app: 'hello',
    mode: 'single-shot',
    proxy: true,
  });
  await register(fx, { runner_id: 'paused', runner_url: app.url, app: 'echo', status: 'draining' });
});
afterAll(async () => {
  await fx.stop();
  await app.close();
});

const reserve = (runnerId: string): ReturnType<typeof call> =>
  call(`${fx.url}/apps/${runnerId}/session`, { method: 'POST' });

describe('GET /discovery', () => {
  it('lists usable runners with Node URL shapes and no runner id or private URL', async () => {
    const reply = await call(`${fx.url}/discovery`);
    expect(reply.status).toBe(200);
    const [entry, ...rest] = DiscoveryResponseSchema.parse(reply.json());
    expect(rest).toEqual([]);
    expect(entry?.address).toBe(fx.url);
    expect(entry?.runners.map((runner) => runner.url)).toEqual([
      `${fx.url}/apps/p1/session`,
      `${fx.url}/apps/s1/app`,
      `${fx.url}/apps/px/session`,
      `${fx.url}/run/spx`,
    ]);
    expect(entry?.runners[0]).toEqual({
      url: `${fx.url}/apps/p1/session`,
      app: 'echo',
      version: 'v1',
      mode: 'persistent',
      capacity: 2,
      capacity_used: 0,
      capacity_available: 2,
    });
    // A free runner's price is omitted (`omitzero`, orchestrator/registry.go@e6ed85a9).
    expect(reply.text).not.toContain('price_info');
    expect(reply.text).not.toContain(app.grant);
    expect(reply.text).not.toContain('runner_id');
  });

  it('counts reservations and hides full runners', async () => {
    const first = await reserve('p1');
    const second = await reserve('p1');
    let listed = DiscoveryResponseSchema.parse((await call(`${fx.url}/discovery`)).json())[0]?.runners ?? [];
    expect(listed.some((runner) => runner.url.includes('/apps/p1/'))).toBe(false);
    const full = await reserve('p1');
    expect([full.status, full.json()]).toEqual([409, { error: NodeErrorMessage.RunnerAtCapacity }]);
    await call(`${first.json<{ control_url: string }>().control_url}/stop`, { method: 'POST' });
    listed = DiscoveryResponseSchema.parse((await call(`${fx.url}/discovery`)).json())[0]?.runners ?? [];
    expect(listed.find((runner) => runner.url.includes('/apps/p1/'))).toMatchObject({
      capacity_used: 1,
      capacity_available: 1,
    });
    await call(`${second.json<{ control_url: string }>().control_url}/stop`, { method: 'POST' });
  });
});

describe('POST /apps/{rid}/session', () => {
  it('reserves a persistent session with Node URLs', async () => {
    const reply = await reserve('p1');
    expect(reply.status).toBe(200);
    const body = ReservationResponseSchema.parse(reply.json());
    expect(body).toEqual({
      session_id: expect.stringMatching(/^[0-9a-f]{32}$/u),
      app_url: `${fx.url}/apps/p1/session/${body.session_id}/app`,
      control_url: `${fx.url}/apps/p1/session/${body.session_id}`,
    });
    expect(Object.keys(reply.json() as object)).toEqual(['app_url', 'control_url', 'session_id']);
    await call(`${body.control_url}/stop`, { method: 'POST' });
  });

  it('gives a proxy:true runner a generated proxy URL as app_url', async () => {
    const body = (await reserve('px')).json<{ app_url: string; control_url: string }>();
    expect(body.app_url).toMatch(new RegExp(`^${fx.url}/run/[0-9a-f]{32}$`, 'u'));
    const viaRun = await call(`${body.app_url}/hi?x=1`);
    const viaAlias = await call(`${body.app_url.replace('/run/', '/proxy/')}/hi`);
    expect([viaRun.status, viaRun.json<{ url: string }>().url, viaAlias.status]).toEqual([
      200,
      '/hi?x=1',
      200,
    ]);
    await call(`${body.control_url}/stop`, { method: 'POST' });
    expect((await call(body.app_url)).json()).toEqual({ error: NodeErrorMessage.ProxyNotFound });
  });

  it.each<[string, string, number, string]>([
    ['an unknown runner', 'nobody', 404, NodeErrorMessage.RunnerUnavailable],
    ['a single-shot runner', 's1', 400, NodeErrorMessage.RunnerNotPersistent],
    ['a runner whose status is not ready', 'paused', 404, NodeErrorMessage.RunnerUnavailable],
  ])('refuses %s', async (_name, runnerId, status, error) => {
    const reply = await reserve(runnerId);
    expect([reply.status, reply.json()]).toEqual([status, { error }]);
  });

  it('answers 405 for other methods and 404 for unknown routes, as Go does', async () => {
    const wrong = await call(`${fx.url}/apps/p1/session`);
    expect([wrong.status, wrong.headers.get('allow'), wrong.text]).toEqual([
      405,
      'POST',
      'Method Not Allowed\n',
    ]);
    const missing = await call(`${fx.url}/nothing/here`);
    expect([missing.status, missing.text]).toEqual([404, '404 page not found\n']);
  });
});

describe('node-wide session limit', () => {
  it('answers 503 session capacity reached at 10,000 sessions', async () => {
    await register(fx, { runner_id: 'big', runner_url: app.url, app: 'echo', capacity: 10_000 });
    for (let i = 0; i < 10_000; i += 1) fx.sim.context.sessions.reserve('big');
    const reply = await reserve('p1');
    expect([reply.status, reply.json()]).toEqual([503, { error: NodeErrorMessage.SessionCapacityReached }]);
    const secretBig = fx.sim.context.state.runners.get('big')?.credential ?? '';
    await call(`${fx.url}/runners/big/unregister`, { method: 'POST', headers: { Authorization: secretBig } });
  });
});

describe('POST /apps/{rid}/session/{sid}/stop', () => {
  it('stops without any token and answers 404 afterwards', async () => {
    const { control_url: control } = (await reserve('p1')).json<{ control_url: string }>();
    const stop = await call(`${control}/stop`, { method: 'POST' });
    expect([stop.status, stop.text]).toEqual([200, '{"ok":true}\n']);
    const again = await call(`${control}/stop`, { method: 'POST' });
    expect([again.status, again.json()]).toEqual([404, { error: NodeErrorMessage.SessionNotFound }]);
  });
});

describe('payment routes off-chain', () => {
  it.each([
    ['session payment', '/apps/p1/session/abc/payment'],
    ['refresh', '/refresh-payment'],
  ])('answers %s with 404 payment unavailable', async (_name, path) => {
    const reply = await call(`${fx.url}${path}`, { method: 'POST', body: '{}' });
    expect([reply.status, reply.json()]).toEqual([404, { error: NodeErrorMessage.PaymentUnavailable }]);
  });

  it('never answers 402 off-chain, even for runners quoting a price', async () => {
    await register(fx, {
      runner_id: 'quoted',
      runner_url: app.url,
      app: 'echo',
      price_info: { price: 3, currency: 'usd', unit: 'hour' },
    });
    const reply = await call(`${fx.url}/apps/quoted/session`, {
      method: 'POST',
      headers: { 'Livepeer-Payer-Address': `0x${'1'.repeat(40)}` },
    });
    expect(reply.status).toBe(200);
    const secret = fx.sim.context.state.runners.get('quoted')?.credential ?? '';
    expect(
      (await heartbeat(fx, secret, { runner_id: 'quoted', runner_url: app.url, app: 'echo', capacity: 1 }))
        .status,
    ).toBe(200);
  });
});
