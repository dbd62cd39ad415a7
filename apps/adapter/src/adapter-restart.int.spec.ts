import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { Redis } from 'ioredis';
import {
  openQueues,
  readyEvent,
  startAdapter,
  type AdapterHarness,
  type AdapterQueues,
} from './__fixtures__/adapter-harness';
import { reserveSession, simCounts, stopSession } from './__fixtures__/node-sim-process';
import { o2rEventsProcessed, runnerView, startSimWorld, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let client: Redis;
let world: SimWorld;
let adapter: AdapterHarness | undefined;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-restart');

const jobs = async (name: string) => (await queues.sessionEvents()).filter((job) => job.name === name);
const start = () =>
  startAdapter({ redisUrl: redis.url, nodeUrl: world.proxy.url, secretFile: world.secretFile, prefix });
const storedCredential = async (instanceId: string): Promise<string | undefined> => {
  const text = await client.get(`${prefix}-adapter:registration:${instanceId}`);
  return text === null
    ? undefined
    : (JSON.parse(text) as { node: { credential: string } | null }).node?.credential;
};
const beatsAfter = (instanceId: string, since: number) =>
  waitFor(
    async () => {
      const view = adapter === undefined ? undefined : await runnerView(adapter, instanceId);
      return view?.state === 'registered' && view.lastBeat !== null && Date.parse(view.lastBeat.at) > since;
    },
    { description: `${instanceId} heartbeating`, timeoutMs: 20_000 },
  );

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  world = await startSimWorld({ heartbeatInterval: '500ms', heartbeatTtl: '3s' });
  queues = openQueues(redis.url, prefix);
  adapter = await start();
});

afterAll(async () => {
  await adapter?.stop();
  await queues?.close();
  await client?.quit();
  await world?.close();
  await redis?.stop();
});

describe('adapter restarts', () => {
  it('resumes heartbeating and O2R with the saved credential, without registering again', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('keep-1'));
    await beatsAfter('keep-1', 0);
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'keep-1');
    await waitFor(
      async () => (await jobs('session-reserved')).some((job) => job.data.sessionId === sessionId),
      {
        description: 'the reservation',
        timeoutMs: 10_000,
      },
    );
    const credential = await storedCredential('keep-1');
    const registrations = world.proxy.registrations;
    await adapter?.stop();
    adapter = await start();
    const restartedAt = Date.now();
    await beatsAfter('keep-1', restartedAt);
    expect(world.proxy.registrations).toBe(registrations);
    expect(await storedCredential('keep-1')).toBe(credential);
    expect((await runnerView(adapter, 'keep-1'))?.sessions).toEqual([sessionId]);
    expect(await stopSession(world.sim.publicUrl, 'keep-1', sessionId ?? '')).toBe(200);
    await waitFor(
      async () => (await jobs('session-released')).some((job) => job.data.sessionId === sessionId),
      {
        description: 'the release after the restart',
        timeoutMs: 10_000,
      },
    );
    // Delivered on the saved O2R channel, from the saved position.
    await waitFor(async () => (await o2rEventsProcessed(adapter?.url ?? '')) >= 1, {
      description: 'the release delivered on O2R',
      timeoutMs: 10_000,
    });
    expect((await jobs('session-reserved')).filter((job) => job.data.sessionId === sessionId)).toHaveLength(
      1,
    );
    const text = await (await fetch(`${adapter.url}/metrics`)).text();
    expect(text).not.toMatch(/^adapter_registrations_total\{/mu);
  });

  it('registers again when it was down for longer than the TTL', async () => {
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'keep-1');
    await waitFor(
      async () => (await runnerView(adapter as AdapterHarness, 'keep-1'))?.sessions.length === 1,
      {
        description: 'the session to be known',
        timeoutMs: 10_000,
      },
    );
    const registrations = world.proxy.registrations;
    await adapter?.stop();
    adapter = undefined;
    // Node sweeps the silent runner (TTL 3 s, swept every 500 ms) and releases its session.
    await waitFor(async () => (await simCounts(world.sim.metricsUrl)).runners === 0, {
      description: 'Node to sweep the expired runner',
      timeoutMs: 15_000,
    });
    adapter = await start();
    await beatsAfter('keep-1', Date.now());
    expect(world.proxy.registrations).toBe(registrations + 1);
    const released = await waitFor(
      async () => (await jobs('session-released')).find((job) => job.data.sessionId === sessionId),
      {
        description: 'the expired session released',
        timeoutMs: 10_000,
      },
    );
    expect(released.data.source).toBe('re-register');
  });

  it('keeps registering with the same runner id while Node still holds a registration whose credential was lost', async () => {
    const registrations = world.proxy.registrations;
    await adapter?.stop();
    // The credential is lost (e.g. the adapter died between Node's answer and saving it).
    const key = `${prefix}-adapter:registration:keep-1`;
    const record = JSON.parse((await client.get(key)) ?? '{}') as Record<string, unknown>;
    await client.set(key, JSON.stringify({ ...record, node: null }));
    adapter = await start();
    await beatsAfter('keep-1', Date.now());
    expect(world.proxy.registrations).toBe(registrations + 1);
    expect((await runnerView(adapter, 'keep-1'))?.runnerId).toBe('keep-1');
    const text = await (await fetch(`${adapter.url}/metrics`)).text();
    expect(text).toMatch(
      /^adapter_node_request_failures_total\{[^}]*kind="bootstrap"[^}]*status="401"[^}]*\} [1-9]/mu,
    );
  });
});
