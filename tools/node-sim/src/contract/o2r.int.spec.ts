import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { O2RMessageSchema } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';
import type { Registration, Reply, SimFixture } from '../testing/sim-fixture';
import { call, register, startSimFixture } from '../testing/sim-fixture';

let app: RunnerApp;
let fx: SimFixture;
let reg: Registration;
beforeAll(async () => {
  app = await startRunnerApp();
});
afterAll(async () => {
  await app.close();
});
beforeEach(async () => {
  fx = await startSimFixture({ runnerGrants: [app.grant] });
  reg = await register(fx, { runner_id: 'r1', runner_url: app.url, app: 'echo', capacity: 5 });
});
afterEach(async () => {
  await fx.stop();
});

const segment = (seq: number | string): Promise<Reply> => call(`${reg.o2r.url}/${seq}`);
const reserve = async (): Promise<string> =>
  (await call(`${fx.url}/apps/r1/session`, { method: 'POST' })).json<{ session_id: string }>().session_id;

/** Waits until a subscriber is blocked on the channel's write head. */
async function subscriberWaiting(seq: number): Promise<void> {
  await waitFor(() => fx.sim.context.trickle.get(reg.o2r.channel_name)?.slots[seq % 5]?.waiting === 1, {
    description: `a subscriber waiting on seq ${seq}`,
  });
}

describe('O2R trickle channel', () => {
  it('blocks a read of the next seq until the event is written, then serves it as one JSON segment', async () => {
    const pending = segment(0);
    await subscriberWaiting(0);
    const sessionId = await reserve();
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('lp-trickle-seq')).toBe('0');
    expect(reply.headers.get('lp-trickle-latest')).toBeNull();
    expect(reply.text).toBe(
      `{"event":"reserved","session":"${sessionId}","timestamp":"2025-01-01T00:00:00Z"}`,
    );
    expect(O2RMessageSchema.parse(reply.json())).toEqual({
      event: 'reserved',
      session: sessionId,
      timestamp: '2025-01-01T00:00:00Z',
    });
  });

  it('publishes {"keep":"alive"} every 10 s', async () => {
    fx.clock.advance(9_999);
    expect((await call(`${reg.o2r.url}/next`)).text).toBe('0');
    fx.clock.advance(1);
    expect((await segment(0)).text).toBe('{"keep":"alive"}');
    fx.clock.advance(10_000);
    expect((await segment(1)).text).toBe('{"keep":"alive"}');
  });

  it('resolves -2 to the latest segment and -1 to the next one', async () => {
    const a = await reserve();
    const b = await reserve();
    const latest = await segment(-2);
    expect([latest.headers.get('lp-trickle-seq'), latest.json()]).toEqual([
      '1',
      expect.objectContaining({ session: b }),
    ]);
    const next = segment(-1);
    await subscriberWaiting(2);
    await call(`${fx.url}/apps/r1/session/${a}/stop`, { method: 'POST' });
    const reply = await next;
    expect([reply.headers.get('lp-trickle-seq'), reply.json()]).toEqual([
      '2',
      expect.objectContaining({ event: 'released', session: a }),
    ]);
  });

  it('keeps the last segments only: 470 with Lp-Trickle-Latest for evicted and far-future seqs', async () => {
    for (let i = 0; i < 7; i += 1) {
      fx.clock.advance(10_000);
      await call(`${fx.url}/runners/heartbeat`, {
        method: 'POST',
        headers: { Authorization: reg.heartbeat_secret },
        body: JSON.stringify({ runner_id: 'r1', runner_url: app.url, app: 'echo', capacity: 5 }),
      });
    }
    // Node's local publisher precreates seq+1, so four written segments (3..6) stay readable.
    for (const seq of [0, 1, 2, 9, 100]) {
      const reply = await segment(seq);
      expect([
        seq,
        reply.status,
        reply.headers.get('lp-trickle-latest'),
        reply.headers.get('lp-trickle-seq'),
        reply.text,
      ]).toEqual([seq, 470, '7', String(seq), 'Entry not found']);
    }
    const behind = await segment(3);
    expect([behind.status, behind.headers.get('lp-trickle-latest'), behind.text]).toEqual([
      200,
      '7',
      '{"keep":"alive"}',
    ]);
    const next = await call(`${reg.o2r.url}/next`);
    expect([
      next.status,
      next.text,
      next.headers.get('lp-trickle-latest'),
      next.headers.get('lp-trickle-closed'),
    ]).toEqual([200, '7', '7', null]);
  });

  it.each([
    ['a non-numeric seq', 'abc', 400],
    ['a seq below -2', '-3', 400],
  ])('answers %s with %p', async (_name, seq, status) => {
    expect((await segment(seq)).status).toBe(status);
  });

  it('answers 404 for unknown channels', async () => {
    const base = `${fx.url}/ai/trickle/0123456789abcdef0123456789abcdef`;
    for (const url of [`${base}/0`, `${base}/next`]) {
      const reply = await call(url);
      expect([reply.status, reply.text]).toEqual([404, 'Stream not found\n']);
    }
  });

  it('answers a waiting subscriber with Lp-Trickle-Closed when the runner unregisters, then 404', async () => {
    const pending = segment(0);
    await subscriberWaiting(0);
    await call(`${fx.url}/runners/r1/unregister`, {
      method: 'POST',
      headers: { Authorization: reg.heartbeat_secret },
    });
    const reply = await pending;
    expect([reply.status, reply.text, reply.headers.get('lp-trickle-closed')]).toEqual([
      200,
      '',
      'terminated',
    ]);
    expect((await segment(0)).status).toBe(404);
  });

  it('accepts DELETE of the channel and stops publishing to it', async () => {
    const reply = await call(reg.o2r.url, { method: 'DELETE' });
    expect(reply.status).toBe(200);
    expect(fx.sim.context.channels.o2r.has('r1')).toBe(false);
    await reserve();
    expect((await segment(0)).status).toBe(404);
  });
});

describe('O2R events on every teardown path', () => {
  async function events(): Promise<string[]> {
    const next = Number((await call(`${reg.o2r.url}/next`)).text);
    const names: string[] = [];
    for (let seq = Math.max(0, next - 4); seq < next; seq += 1) {
      const message = (await segment(seq)).json<{ event?: string }>();
      if (message.event) names.push(message.event);
    }
    return names;
  }

  it.each<[string, (sessionId: string) => Promise<unknown>]>([
    ['client stop', (sid) => call(`${fx.url}/apps/r1/session/${sid}/stop`, { method: 'POST' })],
    [
      'runner stop',
      (sid) => {
        const token = fx.sim.context.state.runners.get('r1')?.sessions.get(sid)?.token ?? '';
        return call(`${fx.url}/runner/r1/session/${sid}/stop`, {
          method: 'POST',
          headers: { 'Livepeer-Session-Token': token },
        });
      },
    ],
    ['shutdown', async () => fx.sim.context.runners.close()],
    [
      'unregister',
      () =>
        call(`${fx.url}/runners/r1/unregister`, {
          method: 'POST',
          headers: { Authorization: reg.heartbeat_secret },
        }),
    ],
  ])('publishes reserved then released on %s', async (_name, teardown) => {
    const sessionId = await reserve();
    expect((await segment(0)).json()).toMatchObject({ event: 'reserved', session: sessionId });
    const reader = segment(1);
    await subscriberWaiting(1);
    await teardown(sessionId);
    expect((await reader).json()).toMatchObject({ event: 'released', session: sessionId });
  });

  it('publishes reserved and released around each single-shot request', async () => {
    await register(fx, { runner_id: 'one', runner_url: app.url, app: 'hello', mode: 'single-shot' });
    const oneReg = fx.sim.context.channels.o2r.get('one') ?? '';
    const reply = await call(`${fx.url}/apps/one/app/hello`, { method: 'POST', body: '{}' });
    expect(reply.status).toBe(200);
    const first = (await call(`${fx.url}/ai/trickle/${oneReg}/0`)).json<{ event: string; session: string }>();
    const second = (await call(`${fx.url}/ai/trickle/${oneReg}/1`)).json<{
      event: string;
      session: string;
    }>();
    expect([first.event, second.event, first.session]).toEqual(['reserved', 'released', second.session]);
    expect(app.seen.at(-1)?.headers['livepeer-session-id']).toBe(first.session);
    expect(await events()).toEqual([]);
  });
});
