import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { NodeErrorMessage } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import type { SimFixture } from '../testing/sim-fixture';
import { BOOTSTRAP_SECRET, call, heartbeat, register, startSimFixture } from '../testing/sim-fixture';

let fx: SimFixture;
beforeEach(async () => {
  fx = await startSimFixture();
});
afterEach(async () => {
  await fx.stop();
});

const body = { runner_url: 'http://10.0.0.5:8080', app: 'echo', capacity: 3 };

async function listed(): Promise<string[]> {
  const [entry] = (await call(`${fx.url}/discovery`)).json<Array<{ runners: Array<{ url: string }> }>>();
  return (entry?.runners ?? []).map((runner) => runner.url);
}

function reserve(runnerId: string): Promise<ReturnType<typeof call> extends Promise<infer R> ? R : never> {
  return call(`${fx.url}/apps/${runnerId}/session`, { method: 'POST' });
}

describe('runner limit', () => {
  it('accepts 256 runners and answers 503 for the 257th, while known runners keep heartbeating', async () => {
    const regs = await Promise.all(
      Array.from({ length: 256 }, (_, i) => register(fx, { ...body, runner_id: `r${i}` })),
    );
    const extra = await heartbeat(fx, BOOTSTRAP_SECRET, { ...body, runner_id: 'r256' });
    expect(extra.status).toBe(503);
    expect(extra.json()).toEqual({ error: NodeErrorMessage.RunnerCapacityReached });
    const again = await heartbeat(fx, regs[0]?.heartbeat_secret ?? '', { ...body, runner_id: 'r0' });
    expect(again.status).toBe(200);
    const metrics = await call(`${fx.sim.metricsUrl}/metrics`);
    expect(metrics.text).toBe('livepeer_runners 256\nlivepeer_sessions 0\n');
  });
});

describe('expiry', () => {
  it('hides a stale runner at once and deletes it with its sessions at the next sweep', async () => {
    const reg = await register(fx, { ...body, runner_id: 'stale' });
    expect((await reserve('stale')).status).toBe(200);
    fx.clock.advance(30_000);
    expect(await listed()).toHaveLength(1);
    fx.clock.advance(1);
    // Past the TTL but not yet swept: unusable, yet still registered.
    expect(await listed()).toEqual([]);
    expect((await reserve('stale')).status).toBe(404);
    expect(fx.sim.context.runners.counts()).toEqual({ runners: 1, sessions: 1 });
    fx.clock.advance(5_000);
    expect(fx.sim.context.runners.counts()).toEqual({ runners: 0, sessions: 0 });
    const after = await heartbeat(fx, reg.heartbeat_secret, { ...body, runner_id: 'stale' });
    expect(after.status).toBe(401);
    expect((await call(`${reg.o2r.url}/0`)).status).toBe(404);
  });

  it('publishes released for every session before the channel closes', async () => {
    const reg = await register(fx, { ...body, runner_id: 'expiring' });
    const first = (await reserve('expiring')).json<{ session_id: string }>();
    await reserve('expiring');
    // seq 0 and 1 are the reservations; keepalives at 10 s, 20 s and 30 s take seq 2 to 4.
    fx.clock.advance(30_000);
    const pending = call(`${reg.o2r.url}/5`);
    await waitFor(() => fx.sim.context.trickle.get(reg.o2r.channel_name)?.slots[0]?.waiting === 1, {
      description: 'the subscriber to wait at the head of the channel',
    });
    fx.clock.advance(5_000);
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ event: 'released', session: first.session_id });
    expect((await call(`${reg.o2r.url}/6`)).status).toBe(404);
  });

  it('keeps a heartbeating runner alive', async () => {
    const reg = await register(fx, { ...body, runner_id: 'alive' });
    for (let i = 0; i < 10; i += 1) {
      fx.clock.advance(5_000);
      expect((await heartbeat(fx, reg.heartbeat_secret, { ...body, runner_id: 'alive' })).status).toBe(200);
    }
    expect(await listed()).toHaveLength(1);
  });
});

describe('POST /runners/{id}/unregister', () => {
  it.each<[string, (secret: string) => [string, string], number, string]>([
    ['an unknown runner', () => ['nobody', 'x'], 404, NodeErrorMessage.RunnerNotFound],
    ['the bootstrap secret', () => ['gone', BOOTSTRAP_SECRET], 401, NodeErrorMessage.InvalidRunnerCredential],
    [
      'another credential',
      () => ['gone', '0123456789abcdef0123456789abcdef'],
      401,
      NodeErrorMessage.InvalidRunnerCredential,
    ],
  ])('refuses %s', async (_name, build, status, error) => {
    const reg = await register(fx, { ...body, runner_id: 'gone' });
    const [id, auth] = build(reg.heartbeat_secret);
    const reply = await call(`${fx.url}/runners/${id}/unregister`, {
      method: 'POST',
      headers: { Authorization: auth },
    });
    expect([reply.status, reply.json()]).toEqual([status, { error }]);
  });

  it('releases sessions, closes the channel and forgets the credential', async () => {
    const reg = await register(fx, { ...body, runner_id: 'leaving' });
    await reserve('leaving');
    const reply = await call(`${fx.url}/runners/leaving/unregister`, {
      method: 'POST',
      headers: { Authorization: reg.heartbeat_secret },
    });
    expect([reply.status, reply.text]).toEqual([200, '{"ok":true}\n']);
    expect(fx.sim.context.runners.counts()).toEqual({ runners: 0, sessions: 0 });
    expect((await call(`${reg.o2r.url}/next`)).status).toBe(404);
    expect((await heartbeat(fx, reg.heartbeat_secret, { ...body, runner_id: 'leaving' })).status).toBe(401);
    // The same id registers again with the bootstrap secret, with a new credential and channel.
    const again = await register(fx, { ...body, runner_id: 'leaving' });
    expect(again.heartbeat_secret).not.toBe(reg.heartbeat_secret);
    expect(again.o2r.channel_name).not.toBe(reg.o2r.channel_name);
  });
});

describe('session_ids and shutdown', () => {
  it("answers with Node's authoritative session list in reservation order", async () => {
    const reg = await register(fx, { ...body, runner_id: 'listed' });
    const a = (await reserve('listed')).json<{ session_id: string }>().session_id;
    const b = (await reserve('listed')).json<{ session_id: string }>().session_id;
    const reply = await heartbeat(fx, reg.heartbeat_secret, {
      ...body,
      runner_id: 'listed',
      session_ids: [],
    });
    expect(reply.json<{ session_ids: string[] }>().session_ids).toEqual([a, b]);
    await call(`${fx.url}/apps/listed/session/${a}/stop`, { method: 'POST' });
    const later = await heartbeat(fx, reg.heartbeat_secret, {
      ...body,
      runner_id: 'listed',
      session_ids: [a, b],
    });
    expect(later.json<{ session_ids: string[] }>().session_ids).toEqual([b]);
  });

  it('refuses heartbeats with 401 and hides runners once Node is closing', async () => {
    const reg = await register(fx, { ...body, runner_id: 'closing' });
    fx.sim.context.runners.close();
    expect((await heartbeat(fx, reg.heartbeat_secret, { ...body, runner_id: 'closing' })).status).toBe(401);
    expect((await heartbeat(fx, BOOTSTRAP_SECRET, body)).status).toBe(401);
    expect(await listed()).toEqual([]);
    expect((await reserve('closing')).status).toBe(404);
  });

  it('forgets everything on restart: the old credential gets 401 and the same id re-registers', async () => {
    const reg = await register(fx, { ...body, runner_id: 'phoenix' });
    await fx.stop();
    fx = await startSimFixture();
    expect((await heartbeat(fx, reg.heartbeat_secret, { ...body, runner_id: 'phoenix' })).status).toBe(401);
    const again = await register(fx, { ...body, runner_id: 'phoenix' });
    expect(again.session_ids).toEqual([]);
  });
});
