// The adapter away during a drain. Killed -9 and back: its sessions view disappears, the drain waits
// (an unknown is never "no sessions"), no session is cut, and the drain ends normally once it reads
// the view again. Gone for good: every phase waiting on it ends at its bound and the drain ends
// `failed`, Node untouched; the commands stay queued and run once the adapter is back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sessionsViewKey, type DrainRecord } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import { createTestAccess, waitFor } from '@sandbox/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { startDrainWorld, type DrainWorld, type RunningController } from './__fixtures__/drain-world';
import { allRegistered, openStreamingSession, simStarts, stopSession } from './__fixtures__/world-sessions';

const INSTANCES = ['outage-i-1', 'outage-i-2'];
const HOUR = 3_600_000;
const BOUND_MS = 1_500;
const access = createTestAccess();
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
let world: DrainWorld;
let controller: RunningController;
let redis: Redis;

async function createDrain(url: string, body: Record<string, unknown>): Promise<DrainRecord> {
  const response = await fetch(`${url}/v1/drains`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...access.headers('admin') },
    body: JSON.stringify({ reason: 'outage', target: { restart: true }, ...body }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as DrainRecord;
}

const getDrain = async (id: string) =>
  (await (
    await fetch(`${controller.url}/v1/drains/${id}`, { headers: access.headers('read') })
  ).json()) as DrainRecord;

/** Withdrawal done and the session read: the first draining look (slow on a loaded machine). */
const sessionCounted = (id: string) =>
  waitFor(async () => (await getDrain(id)).sessions?.total === 1, {
    description: 'the session counted',
    timeoutMs: 30_000,
  });

const unknownLines = () => controller.logs().split('sessions at Node unknown').length - 1;

beforeAll(async () => {
  // A long heartbeat TTL: Node keeps the runners (and their sessions) while the adapter is down.
  world = await startDrainWorld(
    'drain-outage',
    { baseEnv: BASE_ENV, access },
    {
      heartbeat: { interval: '500ms', ttl: '60s' },
    },
  );
  redis = createRedisConnection(world.redis.url, 'producer');
  await world.registerInstances(INSTANCES);
  controller = await world.startController();
}, 120_000);

afterAll(async () => {
  await redis?.quit();
  await world?.close();
  access.cleanup();
});

describe('the adapter away during a drain', () => {
  it('ends failed at RESUME_TIMEOUT_MS when no adapter runs the resume, releasing the one-drain lock', async () => {
    // Its own queues: no adapter consumes them, as when the adapter is down.
    const queuePrefix = `${world.prefix}-alone`;
    const alone = await world.startController({
      QUEUE_PREFIX: queuePrefix,
      KEY_PREFIX: `${world.prefix}-alone-drain`,
      ADAPTER_COMMAND_TIMEOUT_MS: String(BOUND_MS),
      RESUME_TIMEOUT_MS: String(BOUND_MS),
    });
    const commands = new Queue('adapter-commands', { connection: redis, prefix: queuePrefix });
    try {
      const { id } = await createDrain(alone.url, { window: 'PT1H' });
      const ended = await world.waitPhase(alone.url, id, ['failed'], 20_000);
      expect(ended.history.map((change) => change.phase)).toEqual(['withdrawing', 'resuming', 'failed']);
      expect(ended.outcome).toBe('failed');
      expect(ended.finishedAt).not.toBeNull();
      expect(ended.lastError?.message).toBe(
        `the adapter did not complete resume within ${BOUND_MS} ms; it stays queued and registers the runners again once the adapter runs it`,
      );
      const resumingFor = Date.parse(ended.finishedAt ?? '') - Date.parse(ended.history[1]?.at ?? '');
      expect(resumingFor).toBeGreaterThanOrEqual(BOUND_MS);
      // The resume is still queued for the adapter; the lock is free for the next drain.
      expect(await commands.getJobState(`${id}.resume`)).toBe('waiting');
      expect(await alone.parts.store.activeId()).toBeUndefined();
      const next = await createDrain(alone.url, { window: 'PT1H' });
      await world.waitPhase(alone.url, next.id, ['failed'], 20_000);
    } finally {
      await commands.obliterate({ force: true });
      await commands.close();
      await alone.stop();
    }
  }, 60_000);

  it('killed -9 mid-drain and back: waits on the unknown view, cuts no session, ends done', async () => {
    const { sessionId, sse } = await openStreamingSession(world, 'outage-i-1');
    const startsBefore = simStarts(world);
    const { id } = await createDrain(controller.url, { window: '1h', quietPeriod: '0s' });
    await sessionCounted(id);

    await world.killAdapter();
    const viewKey = sessionsViewKey(world.adapterStatePrefix);
    await waitFor(async () => (await redis.exists(viewKey)) === 0, {
      description: 'the dead adapter’s view expired',
      timeoutMs: 15_000,
    });
    const unknownBefore = unknownLines();
    const flowing = sse.events();
    await waitFor(async () => unknownLines() >= unknownBefore + 5 && sse.events() > flowing, {
      description: 'the drain waiting on the unknown view while the session flows',
    });
    expect((await getDrain(id)).phase).toBe('draining');
    expect(sse.endedAt()).toBeUndefined();

    const restartedAt = Date.now();
    await world.restartAdapter();
    await waitFor(
      async () => {
        const { sessions, phase } = await getDrain(id);
        return phase === 'draining' && sessions?.total === 1 && Date.parse(sessions.observedAt) > restartedAt;
      },
      { description: 'the session counted again from the new view', timeoutMs: 20_000 },
    );
    expect(sse.endedAt()).toBeUndefined();

    const stoppedAt = Date.now();
    expect(await stopSession(world, 'outage-i-1', sessionId)).toBe(200);
    const done = await world.waitPhase(controller.url, id, ['done', 'failed'], 60_000);
    expect(done.phase).toBe('done');
    expect(done.history[2]).toMatchObject({ phase: 'cancelling', note: 'no session left' });
    expect(Date.parse(done.history[2]?.at ?? '')).toBeGreaterThanOrEqual(stoppedAt);
    await waitFor(() => simStarts(world) > startsBefore, { description: 'the new Node listening' });
    expect(simStarts(world) - startsBefore).toBe(1);
    await waitFor(allRegistered(world, INSTANCES), {
      description: 'every instance registered again',
      timeoutMs: 20_000,
    });
    expect(await controller.parts.store.activeId()).toBeUndefined();
    sse.close();
  }, 120_000);

  it('gone for good after the deadline: cancelling and resuming end at their bounds, Node untouched', async () => {
    await controller.stop();
    controller = await world.startController({
      ADAPTER_COMMAND_TIMEOUT_MS: String(BOUND_MS),
      RESUME_TIMEOUT_MS: String(BOUND_MS),
    });
    const { sse } = await openStreamingSession(world, 'outage-i-2');
    const pidBefore = world.sim.pid();
    const { id } = await createDrain(controller.url, { window: '1h', quietPeriod: '0s' });
    await sessionCounted(id);
    await world.killAdapter();

    world.advanceClock(HOUR);
    const ended = await world.waitPhase(controller.url, id, ['failed', 'done'], 30_000);
    expect(ended.history.map((change) => change.phase)).toEqual([
      'withdrawing',
      'draining',
      'cancelling',
      'resuming',
      'failed',
    ]);
    expect(ended.history[3]?.note).toBe(
      `failed: the adapter did not complete cancel-sessions within ${BOUND_MS} ms (is it running and reaching Node?)`,
    );
    expect(ended.lastError?.message).toMatch(/^the adapter did not complete resume within 1500 ms/u);
    expect(ended.replacement).toBeNull();
    expect(world.sim.pid()).toBe(pidBefore);
    expect(await controller.parts.store.activeId()).toBeUndefined();

    // Back, the adapter runs what stayed queued: the cancel (the deadline has passed), then the resume.
    await world.restartAdapter();
    await waitFor(() => sse.endedAt() !== undefined, { description: 'the session cut by the late cancel' });
    await waitFor(allRegistered(world, INSTANCES), {
      description: 'every instance registered again by the queued resume',
      timeoutMs: 30_000,
    });
  }, 120_000);
});
