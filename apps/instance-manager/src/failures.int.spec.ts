import { describe, expect, it } from '@jest/globals';
import { HeartbeatRuleMessage, type AppResource } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import { waitFor } from '@sandbox/testing';
import { singleSessionSpec } from './domain/spec-fixtures.fixture';
import { startManager } from './test-support/manager-harness.fixture';
import { FakeHost } from './test-support/fake-runtime.fixture';
import { InsufficientCapacityError } from './drivers/runtime-driver';
import { announcedIds, readyIds, useControllerTestbed } from './test-support/controller-testbed.fixture';

const testbed = useControllerTestbed();
const { setup } = testbed;

// The controllers on a real Redis with an in-memory host: failures, cancellation, restart recovery.
describe('failures (real Redis, fake host)', () => {
  it('fails instances that do not start, backs off, and ends refused registrations', async () => {
    const host = new FakeHost();
    host.failStarts = true;
    const { api, adapter, running } = await setup({}, host);
    await api.put('/v1/apps/broken').send(singleSessionSpec(1, 2)).expect(201);
    await waitFor(async () => (await running.store.listGone()).length >= 1, {
      description: 'a failed start',
      timeoutMs: 10_000,
    });
    expect((await running.store.listGone())[0]?.record).toMatchObject({
      outcome: 'failed',
      reason: 'instance failed to start',
    });
    host.failStarts = false;
    await waitFor(
      async () => (await running.store.listLive('broken')).some((entry) => entry.record.state === 'ready'),
      {
        description: 'ready after backoff',
        timeoutMs: 15_000,
      },
    );
    const [id] = await announcedIds(adapter, 1);
    const nodeReason = HeartbeatRuleMessage.PositivePriceOnChain;
    await adapter.refuse(String(id), nodeReason);
    await waitFor(async () => (await running.store.get(String(id)))?.record.state === 'gone', {
      description: 'refused instance ended',
      timeoutMs: 10_000,
    });
    expect((await running.store.get(String(id)))?.record).toMatchObject({
      outcome: 'failed',
      reason: `registration refused by Node (400): ${nodeReason}`,
    });
    // The app's status names the instance and Node's own reason.
    const app = (await api.get('/v1/apps/broken').expect(200)).body as AppResource;
    expect(app.registrationRefusals).toEqual([
      { instanceId: String(id), status: 400, reason: nodeReason, at: expect.any(String) },
    ]);
  });

  it('shows on the app why its instances do not start, until one is ready again', async () => {
    const host = new FakeHost();
    const reason = 'the host has not enough capacity left: the instance requests 1 CPUs and 256 MiB';
    host.startError = new InsufficientCapacityError(reason);
    const { api, running } = await setup({}, host);
    await api.put('/v1/apps/crowded').send(singleSessionSpec(1, 2)).expect(201);
    await waitFor(async () => (await running.store.listGone()).length >= 1, {
      description: 'a refused start',
      timeoutMs: 10_000,
    });
    const failing = await api.get('/v1/apps/crowded').expect(200);
    expect(failing.body.lastStartFailure).toMatchObject({ reason });
    host.startError = undefined;
    await waitFor(
      async () => (await running.store.listLive('crowded')).some((entry) => entry.record.state === 'ready'),
      { description: 'ready once capacity is back', timeoutMs: 15_000 },
    );
    expect((await api.get('/v1/apps/crowded').expect(200)).body.lastStartFailure).toBeUndefined();
  });

  it('never announces an instance whose URL Node would refuse', async () => {
    const host = new FakeHost();
    host.badUrls = true;
    const { api, adapter, running } = await setup({}, host);
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 1)).expect(201);
    await waitFor(async () => (await running.store.listGone()).length >= 1, {
      description: 'failed instance',
      timeoutMs: 10_000,
    });
    expect((await running.store.listGone())[0]?.record).toMatchObject({
      outcome: 'failed',
      reason: 'instance failed to start',
    });
    expect(readyIds(await adapter.instanceEvents())).toEqual([]);
  });

  it('evicts an instance whose withdrawal the adapter never answers', async () => {
    const { api, states, running } = await setup({ withdrawGraceMs: 1_000 });
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 1)).expect(201);
    await waitFor(async () => (await states('demo')).join() === 'ready', {
      description: 'ready',
      timeoutMs: 10_000,
    });
    await api.put('/v1/apps/demo').send(singleSessionSpec(0, 1)).expect(200);
    await waitFor(async () => (await running.store.listGone()).length === 1, {
      description: 'evicted',
      timeoutMs: 10_000,
    });
    expect((await running.store.listGone())[0]?.record).toMatchObject({
      outcome: 'evicted',
      reason: 'withdrawal timed out',
    });
  });

  it('cancels an instance deleted while it starts, without ever announcing it', async () => {
    const host = new FakeHost();
    const release = host.holdReadiness();
    const { api, adapter, running } = await setup({}, host);
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 1)).expect(201);
    await waitFor(async () => host.instances.size === 1, {
      description: 'instance started',
      timeoutMs: 10_000,
    });
    await api.delete('/v1/apps/demo').expect(202);
    await waitFor(async () => (await running.store.listLive('demo'))[0]?.record.state === 'withdrawing', {
      description: 'cancelled',
      timeoutMs: 10_000,
    });
    release();
    await waitFor(async () => (await api.get('/v1/apps/demo')).status === 404, {
      description: 'app removed',
      timeoutMs: 10_000,
    });
    const events = await waitFor(
      async () => {
        const found = await adapter.instanceEvents();
        return found.length > 0 ? found : undefined;
      },
      { description: 'instance-gone', timeoutMs: 10_000 },
    );
    expect(events.map((event) => event.name)).toEqual(['instance-gone']);
    expect(events[0]?.data).toMatchObject({ outcome: 'evicted', reason: 'app deleted' });
    expect(host.instances.size).toBe(0);
  });
});

describe('restart recovery (real Redis, fake host)', () => {
  it('adopts, finishes and destroys according to what the host holds, announcing nothing twice', async () => {
    const host = new FakeHost();
    const first = await setup({}, host);
    await first.api.put('/v1/apps/demo').send(singleSessionSpec(3, 6)).expect(201);
    await waitFor(async () => (await first.states('demo')).join() === 'ready,ready,ready', {
      description: 'three ready',
      timeoutMs: 10_000,
    });
    const ids = await announcedIds(first.adapter, 3);
    await first.running.stop();
    // While the manager was down: one instance died, one unknown instance appeared.
    host.instances.delete(String(ids[0]));
    host.plant({ instanceId: 'strangerxx', app: 'demo', status: 'running' });
    const second = await startManager(testbed.redisUrl(), host.driver(), first.settings);
    testbed.track(() => second.stop());
    const states = async () =>
      (await second.store.listLive('demo')).map((entry) => entry.record.state).join();
    await waitFor(async () => (await states()) === 'ready,ready,ready', {
      description: 'pool refilled',
      timeoutMs: 10_000,
    });
    expect(host.stopped).toContain('strangerxx');
    expect((await second.store.get(String(ids[0])))?.record).toMatchObject({
      state: 'gone',
      outcome: 'failed',
      reason: 'instance stopped running',
    });
    const ready = await announcedIds(first.adapter, 4);
    expect(new Set(ready).size).toBe(ready.length);
    expect(ready).toHaveLength(4);
    for (const { record } of await second.store.listLive('demo'))
      expect(host.instances.has(record.id)).toBe(true);
  });

  it('re-sends an event whose flag was not set before a crash, exactly once', async () => {
    const { api, adapter, running, states, settings } = await setup();
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 1)).expect(201);
    await waitFor(async () => (await states('demo')).join() === 'ready', {
      description: 'ready',
      timeoutMs: 10_000,
    });
    const [id] = await announcedIds(adapter, 1);
    // A crash after queueing but before the flag: the job exists, the flag says it does not.
    const raw = createRedisConnection(testbed.redisUrl(), 'worker');
    const key = `${settings.keyPrefix}:instance:${String(id)}`;
    await raw.hset(key, 'readyQueued', '0');
    await running.manager.fullPass();
    expect(readyIds(await adapter.instanceEvents())).toEqual([id]);
    // A crash between the state change and the job: no job, flag at 0.
    await adapter.removeEvent(`ready-${String(id)}`);
    await raw.hset(key, 'readyQueued', '0');
    await running.manager.fullPass();
    await running.manager.fullPass();
    expect(readyIds(await adapter.instanceEvents())).toEqual([id]);
    expect(await raw.hget(key, 'readyQueued')).toBe('1');
    await raw.quit();
  });
});
