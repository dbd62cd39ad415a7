import { describe, expect, it } from '@jest/globals';
import { NodeRequestError } from './errors';
import { fetchTransport, type FetchLike } from './http-transport';
import { createRunnerClient, encodeHeartbeatBody } from './runner-client';

const clientOf = (options: { fetch: FetchLike }) =>
  createRunnerClient({ transport: fetchTransport(options.fetch) });

interface Seen {
  url: string;
  init: RequestInit;
}

function fakeFetch(reply: (call: Seen) => Response | Promise<Response>): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    fetch: async (url, init) => {
      const call = { url, init };
      seen.push(call);
      return reply(call);
    },
  };
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const registration = {
  runner_id: 'inst-1',
  orchestrator: 'http://node.internal:8935/base',
  heartbeat_interval: '5s',
  heartbeat_ttl: '30s',
  heartbeat_secret: '0123456789abcdef0123456789abcdef',
  session_ids: [],
  o2r: {
    name: 'o2r',
    channel_name: 'aaaabbbbccccddddeeeeffff00001111',
    url: 'http://node.internal:8935/base/ai/trickle/aaaabbbbccccddddeeeeffff00001111',
    mime_type: 'application/json',
  },
};
const body = { runner_id: 'inst-1', runner_url: 'http://10.0.0.1:8080', app: 'echo', capacity: 2 };

describe('runner client', () => {
  it('registers with the raw credential and parses Node durations', async () => {
    const fake = fakeFetch(() => json(200, registration));
    const client = createRunnerClient({ transport: fetchTransport(fake.fetch) });
    const result = await client.heartbeat({
      baseUrl: 'http://node:8935/',
      credential: 'raw secret',
      body,
      timeoutMs: 1_000,
    });
    expect(result).toMatchObject({ intervalMs: 5_000, ttlMs: 30_000, response: { runner_id: 'inst-1' } });
    expect(fake.seen[0]?.url).toBe('http://node:8935/runners/heartbeat');
    expect(fake.seen[0]?.init.headers).toMatchObject({ Authorization: 'raw secret' });
    expect(JSON.parse(String(fake.seen[0]?.init.body))).toEqual(body);
  });

  it("maps Node's error bodies to typed failures", async () => {
    const client = (status: number, reply: unknown) =>
      clientOf({
        fetch: fakeFetch(() =>
          typeof reply === 'string' ? new Response(reply, { status }) : json(status, reply),
        ).fetch,
      });
    const call = { baseUrl: 'http://node', credential: 'c', body, timeoutMs: 1_000 };
    const refused = await client(400, { error: 'runner price currency must be USD' })
      .heartbeat(call)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NodeRequestError);
    expect(refused).toMatchObject({
      kind: 'http',
      status: 400,
      reason: 'runner price currency must be USD',
      permanent: true,
    });
    const unauthorized = await client(401, { error: 'invalid runner credential' })
      .heartbeat(call)
      .catch((error: unknown) => error);
    expect(unauthorized).toMatchObject({ unauthorized: true, permanent: false });
    const foreign = await client(502, 'upstream said: Authorization=c')
      .heartbeat(call)
      .catch((error: unknown) => error);
    expect(foreign).toMatchObject({ status: 502, reason: 'HTTP 502' });
    const garbled = await client(200, { runner_id: 'x' })
      .heartbeat(call)
      .catch((error: unknown) => error);
    expect(garbled).toMatchObject({ kind: 'invalid-response', status: 200 });
  });

  it('refuses intervals that cannot work (TTL not above the interval)', async () => {
    const client = clientOf({
      fetch: fakeFetch(() => json(200, { ...registration, heartbeat_ttl: '5s' })).fetch,
    });
    await expect(
      client.heartbeat({ baseUrl: 'http://node', credential: 'c', body, timeoutMs: 1_000 }),
    ).rejects.toMatchObject({
      kind: 'invalid-response',
    });
  });

  it('fails with kind timeout when Node does not answer in time, and network when it cannot be reached', async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    const slow = createRunnerClient({ transport: fetchTransport(hanging) });
    await expect(
      slow.heartbeat({ baseUrl: 'http://node', credential: 'c', body, timeoutMs: 20 }),
    ).rejects.toMatchObject({ kind: 'timeout' });
    const refused = clientOf({
      fetch: () =>
        Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
    });
    const error = await refused
      .heartbeat({ baseUrl: 'http://node', credential: 'c', body, timeoutMs: 1_000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network', reason: 'request failed (ECONNREFUSED)' });
  });

  it('rejects with the caller reason when the caller aborts', async () => {
    const controller = new AbortController();
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    const pending = createRunnerClient({ transport: fetchTransport(hanging) }).heartbeat({
      baseUrl: 'http://node',
      credential: 'c',
      body,
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
  });

  it('unregisters with the runner credential; 404 means Node does not know the runner', async () => {
    const ok = fakeFetch(() => json(200, { ok: true }));
    const client = createRunnerClient({ transport: fetchTransport(ok.fetch) });
    await expect(
      client.unregister({
        baseUrl: 'http://node/base',
        runnerId: 'inst-1',
        credential: 'cred',
        timeoutMs: 1_000,
      }),
    ).resolves.toMatchObject({
      outcome: 'unregistered',
    });
    expect(ok.seen[0]?.url).toBe('http://node/base/runners/inst-1/unregister');
    expect(ok.seen[0]?.init.headers).toMatchObject({ Authorization: 'cred' });
    const missing = clientOf({
      fetch: fakeFetch(() => json(404, { error: 'runner not found' })).fetch,
    });
    await expect(
      missing.unregister({ baseUrl: 'http://node', runnerId: 'x', credential: 'c', timeoutMs: 1_000 }),
    ).resolves.toMatchObject({
      outcome: 'unknown-runner',
    });
  });

  it('stops a session through its control URL with the session token', async () => {
    const ok = fakeFetch(() => json(200, { ok: true }));
    const client = createRunnerClient({ transport: fetchTransport(ok.fetch) });
    const control = 'http://node/runner/inst-1/session/s1';
    await expect(
      client.stopSession({ controlUrl: control, sessionToken: 'tok', timeoutMs: 1_000 }),
    ).resolves.toMatchObject({ outcome: 'stopped' });
    expect(ok.seen[0]?.url).toBe(`${control}/stop`);
    expect(ok.seen[0]?.init.headers).toMatchObject({ 'Livepeer-Session-Token': 'tok' });
    const denied = clientOf({
      fetch: fakeFetch(() => json(403, { error: 'invalid session token' })).fetch,
    });
    await expect(
      denied.stopSession({ controlUrl: control, sessionToken: 'bad', timeoutMs: 1_000 }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('reads a repeated heartbeat answer as before, shared and frozen; a changed one afresh', async () => {
    const { heartbeat_secret: _secret, o2r: _o2r, ...steady } = registration;
    let answer: unknown = steady;
    const client = clientOf({ fetch: fakeFetch(() => json(200, answer)).fetch });
    const call = { baseUrl: 'http://node', credential: 'c', body, timeoutMs: 1_000 };
    const first = await client.heartbeat(call);
    const second = await client.heartbeat(call);
    expect(second).toMatchObject({ intervalMs: 5_000, ttlMs: 30_000, response: steady });
    expect(second.response).toBe(first.response);
    expect(Object.isFrozen(second.response.session_ids)).toBe(true);
    answer = { ...steady, session_ids: ['s1'] };
    expect((await client.heartbeat(call)).response.session_ids).toEqual(['s1']);
    answer = { ...steady, heartbeat_ttl: '1s' };
    await expect(client.heartbeat(call)).rejects.toMatchObject({ kind: 'invalid-response' });
  });

  it('keeps no registration answer (it holds the new credential)', async () => {
    const client = clientOf({ fetch: fakeFetch(() => json(200, registration)).fetch });
    const call = { baseUrl: 'http://node', credential: 'c', body, timeoutMs: 1_000 };
    const first = await client.heartbeat(call);
    const second = await client.heartbeat(call);
    expect(second.response).toEqual(first.response);
    expect(second.response).not.toBe(first.response);
  });

  it('writes a decimal USD price as a JSON number, digit for digit', () => {
    const text = encodeHeartbeatBody({
      ...body,
      price_info: { price: '0.000000000000000001', currency: 'usd', unit: 'fixed' },
    });
    expect(text).toContain('"price":0.000000000000000001');
    expect(encodeHeartbeatBody({ ...body, price_info: { price: 2.5 } })).toContain('"price":2.5');
  });
});
