import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NodeLimits } from '@sandbox/protocol';
import { startRedis, uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import {
  openQueues,
  readyEvent,
  startAdapter,
  type AdapterHarness,
  type AdapterQueues,
} from './__fixtures__/adapter-harness';
import { reserveSession, simCounts } from './__fixtures__/node-sim-process';
import { listRunners, runnerView, startSimWorld, type AdapterApi, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let world: SimWorld;
let adapter: AdapterHarness | undefined;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-scale');
const ids = Array.from(
  { length: NodeLimits.maxRunners },
  (_, index) => `scale-${String(index).padStart(3, '0')}`,
);

const api = (): AdapterApi => adapter ?? { url: '', headers: {} };
const registeredSince = async (since: number): Promise<number> =>
  (await listRunners(api())).runners.filter(
    (view) => view.state === 'registered' && view.lastBeat !== null && Date.parse(view.lastBeat.at) >= since,
  ).length;

beforeAll(async () => {
  redis = await startRedis();
  world = await startSimWorld({ heartbeatInterval: '2s', heartbeatTtl: '10s' });
  queues = openQueues(redis.url, prefix);
  // Every runner on O2R first (above the default), to show what that costs app traffic.
  adapter = await start({ O2R_MAX_SUBSCRIPTIONS: '256' });
});

function start(env: Record<string, string> = {}): Promise<AdapterHarness> {
  return startAdapter({
    redisUrl: redis.url,
    nodeUrl: world.proxy.url,
    secretFile: world.secretFile,
    prefix,
    env,
  });
}

afterAll(async () => {
  await adapter?.stop();
  await queues?.close();
  await world?.close();
  await redis?.stop();
});

describe(`${NodeLimits.maxRunners} runners (Node's limit)`, () => {
  it('registers all of them with one scheduler', async () => {
    await Promise.all(
      ids.map((id) => queues.instanceEvents.add('instance-ready', readyEvent(id, { capacity: 2 }))),
    );
    await waitFor(async () => (await registeredSince(0)) === ids.length, {
      description: 'every runner registered',
      timeoutMs: 60_000,
    });
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(ids.length);
  }, 90_000);

  it('keeps retrying one more while Node is full', async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('scale-extra'));
    const view = await waitFor(
      async () => {
        const found = await runnerView(api(), 'scale-extra');
        return found?.lastError?.status === 503 ? found : undefined;
      },
      { description: "Node's 503", timeoutMs: 20_000 },
    );
    expect(view).toMatchObject({
      state: 'registering',
      failure: null,
      lastError: { message: 'runner capacity reached' },
    });
    await queues.instanceEvents.add('instance-gone', {
      instanceId: 'scale-extra',
      app: 'echo',
      outcome: 'completed',
    });
    await waitFor(async () => (await runnerView(api(), 'scale-extra')) === undefined, {
      description: 'the extra instance forgotten',
      timeoutMs: 10_000,
    });
  }, 60_000);

  it('restores every registration after Node crashes and restarts', async () => {
    const before = world.proxy.registrations;
    await world.sim.stop('SIGKILL');
    const restartedAt = Date.now();
    await world.sim.start();
    await waitFor(async () => (await registeredSince(restartedAt)) === ids.length, {
      description: 'every runner registered again',
      timeoutMs: 60_000,
    });
    expect(world.proxy.registrations - before).toBe(ids.length);
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(ids.length);
  }, 90_000);

  it('leaves Node streaming slots for app traffic when O2R subscriptions are capped', async () => {
    const following = async () =>
      (await listRunners(api())).runners.filter((view) => view.o2r.connected).length;
    const appStatus = async () => (await fetch(`${world.sim.publicUrl}/apps/scale-000/app`)).status;
    await waitFor(async () => (await following()) === ids.length, {
      description: 'every runner on O2R',
      timeoutMs: 30_000,
    });
    // Node serves O2R long-polls from the 256 streaming slots app traffic needs too.
    await waitFor(async () => (await appStatus()) === 503, {
      description: "Node's streaming slots full",
      timeoutMs: 15_000,
    });
    const registrations = world.proxy.registrations;
    await adapter?.stop();
    adapter = await start({ O2R_MAX_SUBSCRIPTIONS: '192' });
    await waitFor(async () => (await following()) === 192, {
      description: '192 O2R subscriptions',
      timeoutMs: 30_000,
    });
    // Admitted now (and answered by the route: these runners are persistent, not single-shot).
    await waitFor(async () => (await appStatus()) !== 503, {
      description: 'app traffic admitted',
      timeoutMs: 15_000,
    });
    expect(world.proxy.registrations).toBe(registrations);
    const unfollowed = (await listRunners(api())).runners.find((view) => !view.o2r.connected);
    const { sessionId } = await reserveSession(world.sim.publicUrl, unfollowed?.runnerId ?? '');
    await waitFor(
      async () =>
        (await runnerView(api(), unfollowed?.instanceId ?? ''))?.sessions.includes(sessionId ?? '') === true,
      {
        description: 'the session learned from a heartbeat',
        timeoutMs: 15_000,
      },
    );
  }, 120_000);
});
