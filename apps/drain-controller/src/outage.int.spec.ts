// Redis and the drain-controller's lease holder lost mid-drain. Redis killed -9 and back (AOF): the
// drain, its steps and the sessions view survive, no session is cut, and the drain ends done. Two
// controller replicas with the holder killed -9 for good: the other takes the lease over and finishes
// the drain, cutting the session only at its deadline and replacing Node once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DrainRecord } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import {
  createTestAccess,
  findFreePort,
  replicaStatus,
  startReplica,
  waitFor,
  waitUntilServing,
  type Replica,
} from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { startDrainWorld, type DrainWorld, type RunningController } from './__fixtures__/drain-world';
import { DRAIN_MAIN } from './__fixtures__/processes';
import { allRegistered, openStreamingSession, simStarts, stopSession } from './__fixtures__/world-sessions';

const INSTANCES = ['outage-r-1', 'outage-r-2'];
const access = createTestAccess();
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
let world: DrainWorld;
let controller: RunningController | undefined;
const replicas: Replica[] = [];

async function createDrain(url: string, body: Record<string, unknown>): Promise<DrainRecord> {
  const response = await fetch(`${url}/v1/drains`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...access.headers('admin') },
    body: JSON.stringify({ reason: 'outage', target: { restart: true }, quietPeriod: '0s', ...body }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as DrainRecord;
}

/** The drain as `url` serves it; undefined while that controller (or its Redis) cannot answer. */
async function readDrain(url: string, id: string): Promise<DrainRecord | undefined> {
  const response = await fetch(`${url}/v1/drains/${id}`, {
    headers: access.headers('read'),
    signal: AbortSignal.timeout(2_000),
  }).catch(() => undefined);
  return response?.ok === true ? ((await response.json()) as DrainRecord) : undefined;
}

const counted = (url: string, id: string, after = 0) =>
  waitFor(
    async () => {
      const sessions = (await readDrain(url, id))?.sessions;
      return sessions?.total === 1 && Date.parse(sessions.observedAt) > after;
    },
    { description: 'the session counted', timeoutMs: 30_000 },
  );

beforeAll(async () => {
  // A long heartbeat TTL: Node keeps the runners while the adapter cannot save to Redis.
  world = await startDrainWorld(
    'drain-outage-r',
    { baseEnv: BASE_ENV, access },
    {
      heartbeat: { interval: '500ms', ttl: '60s' },
    },
  );
  await world.registerInstances(INSTANCES);
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.child.kill()));
  await world?.close();
  access.cleanup();
});

describe('outages mid-drain', () => {
  it('Redis killed -9 and back: the drain goes on, cuts no session, ends done', async () => {
    controller = await world.startController();
    const { url } = controller;
    const { sessionId, sse } = await openStreamingSession(world, 'outage-r-1');
    const startsBefore = simStarts(world);
    const { id } = await createDrain(url, { window: '1h' });
    await counted(url, id);

    await world.redis.kill9();
    const flowing = sse.events();
    await waitFor(async () => sse.events() >= flowing + 3, {
      description: 'the session flowing without Redis',
    });
    const restartedAt = Date.now();
    await world.redis.restart();
    await counted(url, id, restartedAt);
    expect((await readDrain(url, id))?.phase).toBe('draining');
    expect(sse.endedAt()).toBeUndefined();

    const stoppedAt = Date.now();
    expect(await stopSession(world, 'outage-r-1', sessionId)).toBe(200);
    const done = await world.waitPhase(url, id, ['done', 'failed'], 60_000);
    expect({ phase: done.phase, error: done.lastError }).toEqual({ phase: 'done', error: null });
    expect(done.history[2]).toMatchObject({ phase: 'cancelling', note: 'no session left' });
    expect(Date.parse(done.history[2]?.at ?? '')).toBeGreaterThanOrEqual(stoppedAt);
    await waitFor(() => simStarts(world) > startsBefore, { description: 'the new Node listening' });
    expect(simStarts(world) - startsBefore).toBe(1);
    await waitFor(allRegistered(world, INSTANCES), { description: 'every instance registered again' });
    expect(await controller.parts.store.activeId()).toBeUndefined();
    sse.close();
    await controller.stop();
  }, 120_000);

  it('two replicas, the lease holder killed -9 for good: the other finishes the drain', async () => {
    const env = { ...BASE_ENV, ...world.controllerEnv({ LOG_LEVEL: 'warn', NODE_ENV: 'production' }) };
    for (const holderId of ['controller-a', 'controller-b'])
      replicas.push(startReplica(DRAIN_MAIN, env, holderId, await findFreePort()));
    await Promise.all(replicas.map((replica) => waitUntilServing(replica)));
    const connection: Redis = createRedisConnection(world.redis.url, 'producer');
    const holder = async () => {
      const id = (await connection.get(`${world.prefix}-drain:lease`))?.split(' ')[1];
      const replica = replicas.find((entry) => entry.holderId === id);
      const ready = replica && (await replicaStatus(replica.port).catch(() => '')) === 'ready';
      return ready ? replica : undefined;
    };
    try {
      const first = await waitFor(holder, { description: 'an active replica', timeoutMs: 30_000 });
      const firstUrl = `http://127.0.0.1:${first.port}`;
      const { sse } = await openStreamingSession(world, 'outage-r-2');
      const startsBefore = simStarts(world);
      const { id } = await createDrain(firstUrl, { window: '20s' });
      await counted(firstUrl, id);

      await first.child.kill();
      const second = await waitFor(
        async () => ((await holder())?.holderId === first.holderId ? undefined : holder()),
        {
          description: 'the other replica active',
          timeoutMs: 30_000,
        },
      );
      const secondUrl = `http://127.0.0.1:${second.port}`;
      expect((await readDrain(secondUrl, id))?.phase).toBe('draining');
      expect(sse.endedAt()).toBeUndefined();

      const done = await world.waitPhase(secondUrl, id, ['done', 'failed'], 90_000);
      expect({ phase: done.phase, error: done.lastError }).toEqual({ phase: 'done', error: null });
      expect(done.history[2]).toMatchObject({ phase: 'cancelling', note: 'window expired' });
      await waitFor(() => sse.endedAt() !== undefined, { description: 'the session cut at the deadline' });
      expect(sse.endedAt()).toBeGreaterThanOrEqual(Date.parse(done.deadline));
      await waitFor(() => simStarts(world) > startsBefore, { description: 'the new Node listening' });
      expect(simStarts(world) - startsBefore).toBe(1);
      await waitFor(allRegistered(world, INSTANCES), { description: 'every instance registered again' });
    } finally {
      await connection.quit();
    }
  }, 180_000);
});
