import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateChannelsResponseSchema, CreateProxyResponseSchema, NodeErrorMessage } from '@sandbox/protocol';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';
import type { SimFixture } from '../testing/sim-fixture';
import { call, register, startSimFixture } from '../testing/sim-fixture';

let app: RunnerApp;
let fx: SimFixture;
beforeAll(async () => {
  app = await startRunnerApp();
  // Session proxies dial through their own policy (Node's --session-proxy-grants), even to the runner URL.
  fx = await startSimFixture({
    runnerGrants: [app.grant],
    sessionProxyGrants: [app.grant],
    runnerServiceUrl: 'http://runner-side.internal:8935',
  });
  await register(fx, { runner_id: 'p1', runner_url: app.url, app: 'echo', capacity: 10 });
});
afterAll(async () => {
  await fx.stop();
  await app.close();
});

/** Reserves a session and learns its control base and token the way an app does: from a proxied request. */
async function session(): Promise<{ id: string; control: string; token: string; local: string }> {
  const reserved = (await call(`${fx.url}/apps/p1/session`, { method: 'POST' })).json<{
    session_id: string;
    app_url: string;
  }>();
  const headers = (await call(reserved.app_url)).json<{ headers: Record<string, string> }>().headers;
  const control = headers['livepeer-session-control'] ?? '';
  // The runner-facing base is not reachable in tests; the same routes answer on the listener.
  return {
    id: reserved.session_id,
    control,
    token: headers['livepeer-session-token'] ?? '',
    local: control.replace('http://runner-side.internal:8935', fx.url),
  };
}

const post = (url: string, token: string, body?: unknown, method = 'POST'): ReturnType<typeof call> =>
  call(url, {
    method,
    headers: { 'Livepeer-Session-Token': token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('POST {control}/stop', () => {
  it('uses the runner-facing base in Livepeer-Session-Control', async () => {
    const s = await session();
    expect(s.control).toBe(`http://runner-side.internal:8935/runner/p1/session/${s.id}`);
  });

  it.each<[string, (token: string) => string, number, string | undefined]>([
    ['no token', () => '', 403, NodeErrorMessage.InvalidSessionToken],
    ['a wrong token', () => 'f'.repeat(32), 403, NodeErrorMessage.InvalidSessionToken],
    ['the session token', (token) => token, 200, undefined],
  ])('answers %s', async (_name, pick, status, error) => {
    const s = await session();
    const reply = await post(`${s.local}/stop`, pick(s.token));
    expect([reply.status, reply.json()]).toEqual([status, error ? { error } : { ok: true }]);
    if (status === 200) expect((await post(`${s.local}/stop`, s.token)).status).toBe(404);
    else await post(`${s.local}/stop`, s.token);
  });
});

describe('session channels', () => {
  it('creates channels idempotently by name with public and runner-facing URLs, and deletes them', async () => {
    const s = await session();
    const created = await post(`${s.local}/channels`, s.token, {
      channels: [{ name: 'out', mime_type: 'video/mp2t' }, { name: 'in' }],
    });
    expect(created.status).toBe(200);
    const { channels } = CreateChannelsResponseSchema.parse(created.json());
    const [out, input] = channels;
    expect(out).toEqual({
      name: 'out',
      channel_name: expect.stringMatching(/^[0-9a-f]{32}$/u),
      url: `${fx.url}/ai/trickle/${out?.channel_name}`,
      internal_url: `http://runner-side.internal:8935/ai/trickle/${out?.channel_name}`,
      mime_type: 'video/mp2t',
    });
    expect(input?.mime_type).toBe('application/octet-stream');
    const again = CreateChannelsResponseSchema.parse(
      (await post(`${s.local}/channels`, s.token, { channels: [{ name: 'out' }] })).json(),
    );
    expect(again.channels[0]?.channel_name).toBe(out?.channel_name);
    // Publish and read one segment through the public URL.
    await call(`${out?.url}/0`, { method: 'POST', body: 'segment-bytes' });
    expect((await call(`${out?.url}/0`)).text).toBe('segment-bytes');
    const deleted = await post(
      `${s.local}/channels`,
      s.token,
      { channels: ['in', input?.channel_name, 'unknown'] },
      'DELETE',
    );
    expect(deleted.json()).toEqual({ deleted: ['in'] });
    await post(`${s.local}/stop`, s.token);
    expect((await call(`${out?.url}/0`)).status).toBe(404);
  });

  it.each<[string, unknown, number, string]>([
    [
      '26 channels',
      { channels: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}` })) },
      400,
      NodeErrorMessage.InvalidChannelsRequest,
    ],
    ['malformed JSON', '{', 400, NodeErrorMessage.InvalidChannelsRequest],
    ['an empty name', { channels: [{ name: '' }] }, 400, NodeErrorMessage.ChannelNameRequired],
  ])('refuses %s', async (_name, body, status, error) => {
    const s = await session();
    const reply = await call(`${s.local}/channels`, {
      method: 'POST',
      headers: { 'Livepeer-Session-Token': s.token },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect([reply.status, reply.json()]).toEqual([status, { error }]);
    await post(`${s.local}/stop`, s.token);
  });

  it('refuses a malformed delete with 400', async () => {
    const s = await session();
    const reply = await call(`${s.local}/channels`, {
      method: 'DELETE',
      headers: { 'Livepeer-Session-Token': s.token },
      body: '{"channels":"x"}',
    });
    expect([reply.status, reply.json()]).toEqual([400, { error: NodeErrorMessage.InvalidChannelsRequest }]);
    await post(`${s.local}/stop`, s.token);
  });

  it('answers 503 too many channels beyond 768 channels node-wide', async () => {
    const s = await session();
    let last = 200;
    for (let batch = 0; last === 200 && batch < 40; batch += 1) {
      const channels = Array.from({ length: 25 }, (_, i) => ({ name: `b${batch}-${i}` }));
      last = (await post(`${s.local}/channels`, s.token, { channels })).status;
    }
    expect(last).toBe(503);
    expect(fx.sim.context.channels.channels.size).toBeLessThanOrEqual(768);
    await post(`${s.local}/stop`, s.token);
  });

  it('refuses a wrong token with 403', async () => {
    const s = await session();
    expect((await post(`${s.local}/channels`, 'x', { channels: [] })).status).toBe(403);
    expect((await post(`${s.local}/channels`, 'x', { channels: [] }, 'DELETE')).status).toBe(403);
    await post(`${s.local}/stop`, s.token);
  });
});

describe('session proxies', () => {
  it('creates a proxy to the runner URL by default, up to 25 per session', async () => {
    const s = await session();
    const created = await post(`${s.local}/proxy`, s.token, {});
    const proxy = CreateProxyResponseSchema.parse(created.json());
    expect(proxy.url).toBe(`${fx.url}/run/${proxy.proxy_id}`);
    expect((await call(`${proxy.url}/via-proxy`)).json<{ url: string }>().url).toBe('/via-proxy');
    for (let i = 1; i < 25; i += 1) expect((await post(`${s.local}/proxy`, s.token, {})).status).toBe(200);
    const over = await post(`${s.local}/proxy`, s.token, {});
    expect([over.status, over.json()]).toEqual([403, { error: NodeErrorMessage.InvalidSessionToken }]);
    await post(`${s.local}/stop`, s.token);
    expect((await call(proxy.url)).status).toBe(404);
  });

  it.each<[string, unknown, number]>([
    ['a relative target', { target_url: '/x' }, 400],
    ['malformed JSON', '{"target_url":', 400],
  ])('refuses %s', async (_name, body, status) => {
    const s = await session();
    const reply = await call(`${s.local}/proxy`, {
      method: 'POST',
      headers: { 'Livepeer-Session-Token': s.token },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(reply.status).toBe(status);
    await post(`${s.local}/stop`, s.token);
  });
});
