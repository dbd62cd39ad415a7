import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NodeErrorMessage } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { WebSocket } from 'ws';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';
import type { SimFixture } from '../testing/sim-fixture';
import { BOOTSTRAP_SECRET, call, heartbeat, register, startSimFixture } from '../testing/sim-fixture';

let app: RunnerApp;
let fx: SimFixture;
let secret: string;
beforeAll(async () => {
  app = await startRunnerApp();
  fx = await startSimFixture({ runnerGrants: [app.grant, '127.0.0.1:9'] });
  secret = (
    await register(fx, { runner_id: 'p1', runner_url: `${app.url}/base?fixed=1`, app: 'echo', capacity: 10 })
  ).heartbeat_secret;
  await register(fx, {
    runner_id: 's1',
    runner_url: app.url,
    app: 'hello',
    mode: 'single-shot',
    capacity: 1,
  });
});
afterAll(async () => {
  await fx.stop();
  await app.close();
});

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

async function session(runnerId = 'p1'): Promise<{ id: string; appUrl: string; control: string }> {
  const body = (await call(`${fx.url}/apps/${runnerId}/session`, { method: 'POST' })).json<{
    session_id: string;
    app_url: string;
    control_url: string;
  }>();
  return { id: body.session_id, appUrl: body.app_url, control: body.control_url };
}

const stop = (control: string): ReturnType<typeof call> => call(`${control}/stop`, { method: 'POST' });

describe('persistent session proxy', () => {
  it('preserves method, path, query, headers and body, and injects the Livepeer headers', async () => {
    const s = await session();
    const reply = await call(`${s.appUrl}/v1/items%20x?b=2&b=3`, {
      method: 'PATCH',
      headers: {
        'Content-Type': 'text/plain',
        Authorization: 'Bearer client',
        'Livepeer-Payment': 'abc',
        'Livepeer-Session-Token': 'forged',
        'X-Custom': 'yes',
      },
      body: 'hello body',
    });
    expect([reply.status, reply.headers.get('x-app')]).toEqual([200, 'echo']);
    const echo = reply.json<Echo>();
    expect(echo).toMatchObject({
      method: 'PATCH',
      url: '/base/v1/items%20x?fixed=1&b=2&b=3',
      body: 'hello body',
    });
    const token = fx.sim.context.state.runners.get('p1')?.sessions.get(s.id)?.token;
    expect(echo.headers).toMatchObject({
      host: app.grant,
      authorization: 'Bearer client',
      'livepeer-payment': 'abc',
      'x-custom': 'yes',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-host': new URL(fx.url).host,
      'x-forwarded-proto': 'http',
      'livepeer-runner-route': 'p1',
      'livepeer-session-id': s.id,
      'livepeer-session-token': token,
      'livepeer-session-control': `${fx.url}/runner/p1/session/${s.id}`,
    });
    await stop(s.control);
  });

  it('forwards the bare app URL to the runner path with a trailing slash', async () => {
    const s = await session();
    expect((await call(s.appUrl)).json<Echo>().url).toBe('/base/?fixed=1');
    await stop(s.control);
  });

  it('streams SSE without buffering and cuts the stream when the session is released', async () => {
    const s = await session();
    const response = await fetch(`${s.appUrl}/events/sse`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain('data: 0');
    await stop(s.control);
    await expect(
      (async () => {
        for (;;) if ((await reader?.read())?.done) return 'ended';
      })(),
    ).rejects.toThrow();
    await waitFor(() => app.open.size === 0, { description: 'the runner to see its stream closed' });
  });

  it('answers 502 to a request still waiting for headers when the session is released', async () => {
    const s = await session();
    const pending = call(`${s.appUrl}/hold`);
    await waitFor(() => app.open.size === 1, { description: 'the held request to reach the runner' });
    await stop(s.control);
    const reply = await pending;
    expect([reply.status, reply.json()]).toEqual([
      502,
      { error: NodeErrorMessage.RunnerDestinationUnavailable },
    ]);
  });

  it('proxies WebSocket upgrades and closes them on release', async () => {
    const s = await session();
    const socket = new WebSocket(`${s.appUrl.replace('http', 'ws')}/ws?room=1`);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const echoed = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send('ping');
    expect(await echoed).toBe('echo:ping');
    const seen = app.seen.at(-1);
    expect([seen?.url, seen?.headers['livepeer-session-id']]).toEqual(['/base/ws?fixed=1&room=1', s.id]);
    await stop(s.control);
    expect(await closed).toBe(1006);
    await waitFor(() => app.sockets.size === 0, { description: 'the runner side of the socket to close' });
  });

  it('answers 404 for unknown sessions and for sessions of a non-ready runner, without releasing them', async () => {
    expect((await call(`${fx.url}/apps/p1/session/nope/app`)).json()).toEqual({
      error: NodeErrorMessage.SessionNotFound,
    });
    const s = await session();
    const body = { runner_id: 'p1', runner_url: `${app.url}/base?fixed=1`, app: 'echo', capacity: 10 };
    await heartbeat(fx, secret, { ...body, status: 'draining' });
    const paused = await call(`${s.appUrl}/x`);
    expect([paused.status, paused.json()]).toEqual([404, { error: NodeErrorMessage.SessionNotFound }]);
    const beat = await heartbeat(fx, secret, { ...body, status: 'ready' });
    expect(beat.json<{ session_ids: string[] }>().session_ids).toContain(s.id);
    expect((await call(`${s.appUrl}/x`)).status).toBe(200);
    await stop(s.control);
  });
});

describe('runner destinations', () => {
  it.each<[string, string, string[]]>([
    ['a granted port nobody listens on', 'http://127.0.0.1:9', []],
    ['a loopback runner without a grant', 'http://127.0.0.1:1', []],
    ['a private address without a grant', 'http://10.255.255.1:80', []],
  ])('answers 502 for %s', async (_name, runnerUrl) => {
    await register(fx, { runner_id: 'bad', runner_url: runnerUrl, app: 'echo', capacity: 1 });
    const s = await session('bad');
    const reply = await call(`${s.appUrl}/x`);
    expect([reply.status, reply.json()]).toEqual([
      502,
      { error: NodeErrorMessage.RunnerDestinationUnavailable },
    ]);
    expect(fx.log.text()).toContain('runner proxy failed');
    await stop(s.control);
    const secretBad = fx.sim.context.state.runners.get('bad')?.credential ?? '';
    await call(`${fx.url}/runners/bad/unregister`, { method: 'POST', headers: { Authorization: secretBad } });
  });

  it('follows a changed runner_url on the next request', async () => {
    const s = await session();
    const body = { runner_id: 'p1', app: 'echo', capacity: 10 };
    await heartbeat(fx, secret, { ...body, runner_url: `${app.url}/moved` });
    expect((await call(`${s.appUrl}/x`)).json<Echo>().url).toBe('/moved/x');
    await heartbeat(fx, secret, { ...body, runner_url: `${app.url}/base?fixed=1` });
    await stop(s.control);
  });
});

describe('single-shot proxy', () => {
  it('wraps one request in a transient session with its own headers', async () => {
    const reply = await call(`${fx.url}/apps/s1/app/generate?n=1`, {
      method: 'POST',
      body: '{"prompt":"x"}',
    });
    const echo = reply.json<Echo>();
    expect(echo).toMatchObject({ method: 'POST', url: '/generate?n=1', body: '{"prompt":"x"}' });
    expect(echo.headers['livepeer-session-id']).toMatch(/^[0-9a-f]{32}$/u);
    expect(fx.sim.context.runners.counts().sessions).toBe(0);
  });

  it('answers 409 while its only slot is busy, and 400 on a persistent runner', async () => {
    const held = call(`${fx.url}/apps/s1/app/hold`);
    await waitFor(() => app.open.size === 1, { description: 'the single-shot request to reach the runner' });
    const busy = await call(`${fx.url}/apps/s1/app/x`);
    expect([busy.status, busy.json()]).toEqual([409, { error: NodeErrorMessage.RunnerAtCapacity }]);
    const sessionId = fx.sim.context.state.runners.get('s1')?.sessions.keys().next().value ?? '';
    fx.sim.context.sessions.releaseBySession(sessionId);
    expect((await held).status).toBe(502);
    const persistent = await call(`${fx.url}/apps/p1/app/x`);
    expect([persistent.status, persistent.json()]).toEqual([
      400,
      { error: NodeErrorMessage.RunnerNotSingleShot },
    ]);
  });
});

describe('secrets', () => {
  it('never writes credentials or session tokens to the log', async () => {
    const s = await session();
    await call(`${s.appUrl}/x`);
    await register(fx, { runner_id: 'unreachable', runner_url: 'http://127.0.0.1:9', app: 'echo' });
    const dead = await session('unreachable');
    expect((await call(`${dead.appUrl}/x`)).status).toBe(502);
    const tokens = [...(fx.sim.context.state.runners.values() ?? [])].flatMap((runner) => [
      runner.credential,
      ...[...runner.sessions.values()].map((item) => item.token),
    ]);
    const log = fx.log.text();
    expect(log).toContain('runner proxy failed');
    for (const value of [BOOTSTRAP_SECRET, secret, ...tokens]) expect(log).not.toContain(value);
    await stop(s.control);
    await stop(dead.control);
  });
});
