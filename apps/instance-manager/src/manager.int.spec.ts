import { describe, expect, it } from '@jest/globals';
import { waitFor } from '@sandbox/testing';
import { reusableSpec, singleSessionSpec } from './domain/spec-fixtures.fixture';
import { announcedIds, useControllerTestbed } from './test-support/controller-testbed.fixture';

const testbed = useControllerTestbed();
const { setup } = testbed;

// The controllers on a real Redis with an in-memory host: pools, sessions, scaling, deletion.
describe('instance-manager controllers (real Redis, fake host)', () => {
  it('fills a single-session warm pool and announces each instance exactly once', async () => {
    const { api, adapter, states, running } = await setup();
    await api
      .put('/v1/apps/demo')
      .send(singleSessionSpec(2, 4, { price: { usd: '0.5', unit: 'fixed' } }))
      .expect(201);
    await waitFor(async () => (await states('demo')).join() === 'ready,ready', {
      description: 'two ready',
      timeoutMs: 10_000,
    });
    await running.manager.fullPass();
    await running.manager.fullPass();
    const events = await adapter.instanceEvents();
    expect(events.map((event) => event.name)).toEqual(['instance-ready', 'instance-ready']);
    expect(events[0]?.data).toMatchObject({
      app: 'demo',
      capacity: 1,
      kind: 'single-session',
      mode: 'persistent',
      price: { usd: '0.5', unit: 'fixed' },
    });
    expect(events[0]?.id).toBe(`ready-${String(events[0]?.data['instanceId'])}`);
  });

  it('takes, replaces, withdraws and destroys a single-session instance', async () => {
    const { api, adapter, states, running, host } = await setup();
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 3)).expect(201);
    await waitFor(async () => (await states('demo')).join() === 'ready', {
      description: 'one ready',
      timeoutMs: 10_000,
    });
    const [first] = await announcedIds(adapter, 1);
    const session = await adapter.reserve(String(first));
    await waitFor(async () => (await states('demo')).join() === 'ready,taken', {
      description: 'taken + replacement',
      timeoutMs: 10_000,
    });
    await adapter.reserve(String(first), session);
    await adapter.release(String(first), session);
    const withdraw = await waitFor(
      async () => (await adapter.instanceEvents()).find((event) => event.name === 'instance-withdraw'),
      {
        description: 'instance-withdraw',
        timeoutMs: 10_000,
      },
    );
    expect(await states('demo')).toEqual(['ready', 'withdrawing']);
    expect(withdraw.data).toEqual({
      instanceId: first,
      app: 'demo',
      reason: 'session ended',
      immediate: true,
    });
    await adapter.withdrawn(String(first));
    await waitFor(async () => (await states('demo')).join() === 'ready', {
      description: 'destroyed',
      timeoutMs: 10_000,
    });
    expect(host.stopped).toContain(first);
    const gone = await running.store.get(String(first));
    expect(gone?.record).toMatchObject({ state: 'gone', outcome: 'completed', reason: 'session ended' });
    const goneEvents = async () =>
      (await adapter.instanceEvents()).filter((event) => event.name === 'instance-gone');
    await waitFor(async () => (await goneEvents()).length > 0, {
      description: 'instance-gone',
      timeoutMs: 10_000,
    });
    expect((await goneEvents()).map((event) => event.data)).toEqual([
      { instanceId: first, app: 'demo', outcome: 'completed', reason: 'session ended' },
    ]);
    const logs = await api.get(`/v1/instances/${String(first)}/logs`).expect(200);
    expect(logs.body).toEqual({
      instanceId: first,
      source: 'archived',
      lines: [expect.objectContaining({ text: `hello from ${String(first)}` })],
    });
    const listed = await api.get('/v1/instances?state=gone').expect(200);
    expect(listed.body.instances).toEqual([
      expect.objectContaining({ instanceId: first, state: 'gone', outcome: 'completed' }),
    ]);
  });

  it('scales down gracefully and removes a deleted app once its instances are gone', async () => {
    const { api, adapter, states } = await setup();
    await api.put('/v1/apps/demo').send(singleSessionSpec(2, 2)).expect(201);
    await waitFor(async () => (await states('demo')).join() === 'ready,ready', {
      description: 'two ready',
      timeoutMs: 10_000,
    });
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 2)).expect(200);
    await waitFor(async () => (await states('demo')).join() === 'ready,withdrawing', {
      description: 'one withdrawing',
      timeoutMs: 10_000,
    });
    const withdraw = await waitFor(
      async () => (await adapter.instanceEvents()).find((event) => event.name === 'instance-withdraw'),
      {
        description: 'instance-withdraw',
        timeoutMs: 10_000,
      },
    );
    expect(withdraw.data).toMatchObject({ reason: 'scaled down', immediate: false });
    await api.delete('/v1/apps/demo').expect(202);
    await waitFor(async () => (await states('demo')).join() === 'withdrawing,withdrawing', {
      description: 'all withdrawing',
      timeoutMs: 10_000,
    });
    for (const id of await announcedIds(adapter, 2)) await adapter.withdrawn(id);
    await waitFor(async () => (await api.get('/v1/apps/demo')).status === 404, {
      description: 'app removed',
      timeoutMs: 10_000,
    });
  });

  it('tracks sessions of reusable instances and scales with them', async () => {
    const { api, adapter, states } = await setup();
    await api
      .put('/v1/apps/shared')
      .send(reusableSpec(2, 1, 3))
      .expect(201);
    await waitFor(async () => (await states('shared')).join() === 'ready', {
      description: 'one ready',
      timeoutMs: 10_000,
    });
    const [id] = await announcedIds(adapter, 1);
    await adapter.reserve(String(id), 'a');
    await adapter.reserve(String(id), 'b');
    await waitFor(async () => (await states('shared')).join() === 'ready,ready', {
      description: 'headroom instance',
      timeoutMs: 10_000,
    });
    const body = (await api.get('/v1/instances?app=shared').expect(200)).body as {
      instances: { instanceId: string; sessions: number; capacity: number }[];
    };
    expect(body.instances.find((instance) => instance.instanceId === id)).toMatchObject({
      sessions: 2,
      capacity: 2,
    });
    await adapter.release(String(id), 'a');
    await adapter.release(String(id), 'b');
    await waitFor(async () => (await states('shared')).join() === 'ready,withdrawing', {
      description: 'scaled back',
      timeoutMs: 10_000,
    });
  });

  it('ends an instance the driver reports gone at once, without waiting for the full pass', async () => {
    const { api, host, running, states } = await setup({ resyncIntervalMs: 600_000 });
    await api.put('/v1/apps/demo').send(singleSessionSpec(1, 2)).expect(201);
    const [first] = await waitFor(
      async () => ((await states('demo')).join() === 'ready' ? running.store.listLive('demo') : undefined),
      { description: 'one ready', timeoutMs: 10_000 },
    );
    const id = first?.record.id ?? '';
    host.vanish(id);
    const gone = await waitFor(
      async () => {
        const record = (await running.store.get(id))?.record;
        return record?.state === 'gone' ? record : undefined;
      },
      { description: 'the vanished instance gone', timeoutMs: 5_000 },
    );
    expect(gone).toMatchObject({ outcome: 'failed', reason: 'instance stopped running' });
    await waitFor(async () => (await states('demo')).join() === 'ready', {
      description: 'a replacement ready',
      timeoutMs: 10_000,
    });
  });
});
