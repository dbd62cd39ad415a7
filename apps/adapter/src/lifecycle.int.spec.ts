import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RunnersResponseSchema } from '@sandbox/protocol';
import { uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { Redis } from 'ioredis';
import { readyEvent, type AdapterHarness, type AdapterQueues } from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { discover, reserveSession, simCounts, stopSession } from './__fixtures__/node-sim-process';
import { listRunners, o2rEventsProcessed, runnerView, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-lifecycle');

const jobs = async (name?: string) =>
  (await queues.sessionEvents()).filter((job) => name === undefined || job.name === name);
const waitState = (instanceId: string, state: string) =>
  waitFor(async () => (await runnerView(adapter, instanceId))?.state === state, {
    description: `${instanceId} to be ${state}`,
    timeoutMs: 20_000,
  });

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  parts = await startAdapterWorld({ prefix, sim: { heartbeatInterval: '500ms', heartbeatTtl: '2s' } });
  ({ redis, world, adapter, queues } = parts);
});

afterAll(async () => {
  await parts?.close();
});

describe('adapter lifecycle against the Node simulator', () => {
  it('registers a ready instance with everything its spec advertises', async () => {
    await queues.instanceEvents.add(
      'instance-ready',
      readyEvent('inst-a', {
        capacity: 4,
        price: { usd: '0.5', unit: 'hour' },
        gpu: { name: 'L4', vramMb: 24_576 },
        version: '1.2.3',
        metadata: '{"model":"echo"}',
      }),
    );
    await waitState('inst-a', 'registered');
    const listed = await discover(world.sim.publicUrl);
    expect(listed).toEqual([
      expect.objectContaining({
        app: 'echo',
        capacity: 4,
        capacity_available: 4,
        mode: 'persistent',
        metadata: '{"model":"echo"}',
        version: '1.2.3',
        gpu: { name: 'L4', vram_mb: 24_576 },
      }),
    ]);
    const body = await listRunners(adapter);
    expect(RunnersResponseSchema.parse(body).runners[0]).toMatchObject({
      runnerId: 'inst-a',
      advertisedCapacity: 4,
      heartbeat: { intervalMs: 500, ttlMs: 2_000 },
      lastError: null,
    });
  });

  it('publishes O2R reservations and releases as deduplicated session events', async () => {
    const o2rBefore = await o2rEventsProcessed(adapter.url);
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'inst-a');
    expect(sessionId).toBeDefined();
    const reservedId = `session-reserved.inst-a.${sessionId}`;
    await waitFor(async () => (await jobs('session-reserved')).some((job) => job.id === reservedId), {
      description: 'the session-reserved job',
      timeoutMs: 10_000,
    });
    expect((await runnerView(adapter, 'inst-a'))?.sessions).toEqual([sessionId]);
    expect(await stopSession(world.sim.publicUrl, 'inst-a', sessionId ?? '')).toBe(200);
    const releasedId = `session-released.inst-a.${sessionId}`;
    await waitFor(async () => (await jobs('session-released')).some((job) => job.id === releasedId), {
      description: 'the session-released job',
      timeoutMs: 10_000,
    });
    // Both events arrive on O2R; a heartbeat may report one first, and the other report is a duplicate.
    await waitFor(async () => (await o2rEventsProcessed(adapter.url)) >= o2rBefore + 2, {
      description: 'both events delivered on O2R',
      timeoutMs: 10_000,
    });
    const forSession = (await jobs()).filter((job) => job.data.sessionId === sessionId);
    expect(forSession.map((job) => job.name).sort()).toEqual(['session-released', 'session-reserved']);
    expect(forSession.every((job) => ['o2r', 'heartbeat-reconcile'].includes(String(job.data.source)))).toBe(
      true,
    );
  });

  it('withdraws an idle instance by unregistering it, then acknowledges', async () => {
    await queues.instanceEvents.add('instance-withdraw', {
      instanceId: 'inst-a',
      app: 'echo',
      reason: 'scale down',
      immediate: false,
    });
    await waitFor(
      async () => (await jobs('runner-withdrawn')).some((job) => job.data.instanceId === 'inst-a'),
      {
        description: 'runner-withdrawn for inst-a',
        timeoutMs: 10_000,
      },
    );
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(0);
    expect((await runnerView(adapter, 'inst-a'))?.state).toBe('withdrawn');
  });

  it('withdraws a busy instance by capping its capacity, then unregisters it when the session ends', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('inst-b', { capacity: 3 }));
    await waitState('inst-b', 'registered');
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'inst-b');
    await waitFor(async () => (await runnerView(adapter, 'inst-b'))?.sessions.length === 1, {
      description: 'the session to be known',
      timeoutMs: 10_000,
    });
    await queues.instanceEvents.add('instance-withdraw', {
      instanceId: 'inst-b',
      app: 'echo',
      reason: 'replace',
      immediate: false,
    });
    await waitFor(async () => (await runnerView(adapter, 'inst-b'))?.advertisedCapacity === 1, {
      description: 'the capacity capped at 1',
      timeoutMs: 10_000,
    });
    expect((await runnerView(adapter, 'inst-b'))?.state).toBe('capped');
    expect(await discover(world.sim.publicUrl)).toEqual([]);
    expect((await reserveSession(world.sim.publicUrl, 'inst-b')).status).toBe(409);
    expect((await simCounts(world.sim.metricsUrl)).sessions).toBe(1);
    expect(await stopSession(world.sim.publicUrl, 'inst-b', sessionId ?? '')).toBe(200);
    await waitFor(
      async () => (await jobs('runner-withdrawn')).some((job) => job.data.instanceId === 'inst-b'),
      {
        description: 'runner-withdrawn for inst-b',
        timeoutMs: 10_000,
      },
    );
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(0);
  });

  it('withdraws at once when told to, releasing the active sessions', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('inst-c'));
    await waitState('inst-c', 'registered');
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'inst-c');
    await queues.instanceEvents.add('instance-withdraw', {
      instanceId: 'inst-c',
      app: 'echo',
      reason: 'evicted',
      immediate: true,
    });
    await waitFor(
      async () => (await jobs('runner-withdrawn')).some((job) => job.data.instanceId === 'inst-c'),
      {
        description: 'runner-withdrawn for inst-c',
        timeoutMs: 10_000,
      },
    );
    const released = (await jobs('session-released')).find((job) => job.data.sessionId === sessionId);
    expect(['o2r', 'unregister']).toContain(released?.data.source);
    expect((await simCounts(world.sim.metricsUrl)).sessions).toBe(0);
  });

  it('acknowledges the withdrawal of an instance it never registered', async () => {
    await queues.instanceEvents.add('instance-withdraw', {
      instanceId: 'never-seen',
      app: 'echo',
      reason: 'cleanup',
      immediate: false,
    });
    await waitFor(
      async () => (await jobs('runner-withdrawn')).some((job) => job.data.instanceId === 'never-seen'),
      {
        description: 'runner-withdrawn for never-seen',
        timeoutMs: 10_000,
      },
    );
  });

  it('forgets a gone instance: unregistered at Node, removed from Redis and from the API', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('inst-d'));
    await waitState('inst-d', 'registered');
    await queues.instanceEvents.add('instance-gone', {
      instanceId: 'inst-d',
      app: 'echo',
      outcome: 'failed',
    });
    await waitFor(async () => (await runnerView(adapter, 'inst-d')) === undefined, {
      description: 'inst-d to disappear',
      timeoutMs: 10_000,
    });
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(0);
    const client = new Redis(redis.url);
    expect(await client.exists(`${prefix}-adapter:registration:inst-d`)).toBe(0);
    await client.quit();
    expect((await fetch(`${adapter.url}/v1/runners/inst-d`, { headers: adapter.headers })).status).toBe(404);
  });

  it('validates its inputs', async () => {
    expect((await fetch(`${adapter.url}/v1/runners?state=bogus`, { headers: adapter.headers })).status).toBe(
      400,
    );
    expect((await fetch(`${adapter.url}/v1/runners?unknown=1`, { headers: adapter.headers })).status).toBe(
      400,
    );
    expect(
      (await fetch(`${adapter.url}/v1/runners/Not_An_Instance`, { headers: adapter.headers })).status,
    ).toBe(400);
    const filtered = (await (
      await fetch(`${adapter.url}/v1/runners?state=withdrawn`, { headers: adapter.headers })
    ).json()) as {
      runners: unknown[];
    };
    expect(filtered.runners).toHaveLength(3);
  });
});
