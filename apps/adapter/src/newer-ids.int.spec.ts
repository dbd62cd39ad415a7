// The adapter against a Node that draws its newer ids and credentials (`runner_…`, `session_…`,
// 52-character base32 secrets): nothing of ours may assume 32 hex characters.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { Redis } from 'ioredis';
import { readyEvent, type AdapterHarness, type AdapterQueues } from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { reserveSession, stopSession } from './__fixtures__/node-sim-process';
import { runnerView, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-ids');

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  parts = await startAdapterWorld({
    prefix,
    sim: {
      heartbeatInterval: '500ms',
      heartbeatTtl: '3s',
      extraArgs: ['--id-format', 'base32'],
    },
  });
  ({ redis, world, adapter, queues } = parts);
});

afterAll(async () => {
  await parts?.close();
});

const sessionJob = (name: string, sessionId: string) =>
  waitFor(
    async () =>
      (await queues.sessionEvents()).find((job) => job.name === name && job.data.sessionId === sessionId),
    { description: `${name} for ${sessionId}`, timeoutMs: 15_000 },
  );

describe("Node's newer ids and credentials", () => {
  it('registers, heartbeats with a 52-character credential and follows session_ ids through O2R and heartbeats', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('ids-1', { capacity: 3 }));
    await waitFor(async () => (await runnerView(adapter, 'ids-1'))?.o2r.connected === true, {
      description: 'registered and on O2R',
      timeoutMs: 15_000,
    });
    const { runnerId } = (await runnerView(adapter, 'ids-1')) ?? { runnerId: '' };
    const { sessionId = '' } = await reserveSession(world.sim.publicUrl, runnerId);
    expect(sessionId).toMatch(/^session_[a-z2-7]{16}$/u);
    expect((await sessionJob('session-reserved', sessionId)).data).toMatchObject({ runnerId, sessionId });
    // Several heartbeats later the credential still works and Node's list matches ours.
    const beats = world.proxy.registrations;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const view = await runnerView(adapter, 'ids-1');
    expect(view).toMatchObject({ state: 'registered', sessions: [sessionId], lastError: null });
    expect(world.proxy.registrations).toBe(beats);
    expect(await stopSession(world.sim.publicUrl, runnerId, sessionId)).toBe(200);
    await sessionJob('session-released', sessionId);
    // The stored record keeps the 52-character credential as it came.
    const client = new Redis(redis.url);
    try {
      const stored = await client.get(`${prefix}-adapter:registration:ids-1`);
      expect(JSON.parse(stored ?? '{}').node?.credential).toMatch(/^[a-z2-7]{52}$/u);
    } finally {
      await client.quit();
    }
  });
});
