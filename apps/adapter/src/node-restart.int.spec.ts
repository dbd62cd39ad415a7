import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uniquePrefix, waitFor } from '@sandbox/testing';
import { readyEvent, type AdapterHarness, type AdapterQueues } from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { reserveSession, simCounts } from './__fixtures__/node-sim-process';
import {
  listRunners,
  metricValue,
  o2rEventsProcessed,
  runnerView,
  type SimWorld,
} from './__fixtures__/world';

let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
const prefix = uniquePrefix('adapter-node-restart');
const INSTANCES = ['node-r-1', 'node-r-2', 'node-r-3'];

const jobs = async (name: string) => (await queues.sessionEvents()).filter((job) => job.name === name);
const allRegisteredSince = async (since: number) => {
  const { runners } = await listRunners(adapter);
  return (
    runners.length === INSTANCES.length &&
    runners.every(
      (view) =>
        view.state === 'registered' && view.lastBeat !== null && Date.parse(view.lastBeat.at) >= since,
    )
  );
};

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  parts = await startAdapterWorld({ prefix, sim: { heartbeatInterval: '500ms', heartbeatTtl: '2s' } });
  ({ world, adapter, queues } = parts);
  for (const id of INSTANCES) await queues.instanceEvents.add('instance-ready', readyEvent(id));
  await waitFor(() => allRegisteredSince(0), { description: 'every instance registered', timeoutMs: 20_000 });
});

afterAll(async () => {
  await parts?.close();
});

describe('Node restarts', () => {
  it('re-registers every runner with the same id after a crash, and releases the lost sessions', async () => {
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'node-r-1');
    await waitFor(
      async () => (await runnerView(adapter, 'node-r-1'))?.sessions.includes(sessionId ?? '') === true,
      {
        description: 'the session to be known',
        timeoutMs: 10_000,
      },
    );
    const before = world.proxy.registrations;
    await world.sim.stop('SIGKILL');
    const restartedAt = Date.now();
    await world.sim.start();
    await waitFor(() => allRegisteredSince(restartedAt), {
      description: 'every runner registered again',
      timeoutMs: 20_000,
    });
    expect(world.proxy.registrations - before).toBe(INSTANCES.length);
    expect((await simCounts(world.sim.metricsUrl)).runners).toBe(INSTANCES.length);
    expect((await listRunners(adapter)).runners.map((view) => view.runnerId).sort()).toEqual(INSTANCES);
    const released = await waitFor(
      async () => (await jobs('session-released')).find((job) => job.data.sessionId === sessionId),
      {
        description: 'the lost session released',
        timeoutMs: 10_000,
      },
    );
    expect(released.data.source).toBe('re-register');
    expect(await metricValue(adapter.url, 'adapter_registrations_total', { reason: 're-register' })).toBe(
      INSTANCES.length,
    );
  });

  it('follows the new O2R channel after re-registering', async () => {
    const before = await o2rEventsProcessed(adapter.url);
    const { sessionId } = await reserveSession(world.sim.publicUrl, 'node-r-2');
    await waitFor(
      async () => (await jobs('session-reserved')).some((job) => job.data.sessionId === sessionId),
      {
        description: 'the reservation published',
        timeoutMs: 10_000,
      },
    );
    await waitFor(async () => (await o2rEventsProcessed(adapter.url)) > before, {
      description: 'the reservation delivered on the new channel',
      timeoutMs: 10_000,
    });
  });

  it('re-registers after a graceful Node shutdown too', async () => {
    const before = world.proxy.registrations;
    await world.sim.stop('SIGTERM');
    const restartedAt = Date.now();
    await world.sim.start();
    await waitFor(() => allRegisteredSince(restartedAt), {
      description: 'every runner registered again',
      timeoutMs: 20_000,
    });
    expect(world.proxy.registrations - before).toBe(INSTANCES.length);
    expect((await runnerView(adapter, 'node-r-2'))?.sessions).toEqual([]);
    expect((await jobs('session-released')).map((job) => job.data.runnerId)).toContain('node-r-2');
  });
});
