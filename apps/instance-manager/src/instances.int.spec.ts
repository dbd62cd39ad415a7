import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { SandboxDriver } from '@sandbox/sandbox-local';
import { startRedis, uniquePrefix, waitFor } from '@sandbox/testing';
import type { RedisFixture } from '@sandbox/testing';
import { createLocalRuntime } from './drivers/local-runtime';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import {
  exampleAppSpec,
  exampleImage,
  hostLeftovers,
  testLocalDriver,
  uniqueLocalHost,
} from './test-support/local-host.fixture';
import { adapterSide, startManager, testSettings } from './test-support/manager-harness.fixture';
import type { ApiClient } from './test-support/manager-harness.fixture';
import { wsRoundTrip } from './test-support/ws-client.fixture';

// The whole service with the real local driver: gVisor instances of the example app on this host.
const { prefix: PREFIX, subnet: SUBNET } = uniqueLocalHost('ia');
const LONG = { timeoutMs: 60_000, intervalMs: 100 };

let redis: RedisFixture;
let image = '';
let driver: SandboxDriver;
let harness: Awaited<ReturnType<typeof startManager>>;
let adapter: Awaited<ReturnType<typeof adapterSide>>;
let api: ApiClient;

const states = async (app: string) =>
  (await harness.store.listLive(app))
    .map((entry) => entry.record.state)
    .sort()
    .join();
const hostIds = async () => (await driver.list()).map((found) => found.instanceId).sort();
const events = async (name: string) =>
  (await adapter.instanceEvents()).filter((event) => event.name === name);
const ids = async (name: string, app: string) =>
  (await events(name))
    .filter((event) => event.data['app'] === app)
    .map((event) => String(event.data['instanceId']));

/** Plays the adapter's part of a withdrawal: answer every `instance-withdraw` of the app. */
async function answerWithdrawals(app: string): Promise<string[]> {
  const withdrawn = await ids('instance-withdraw', app);
  for (const id of withdrawn) await adapter.withdrawn(id);
  return withdrawn;
}

describeAsRoot('instance-manager with gVisor instances (real Redis, real runsc)', () => {
  beforeAll(async () => {
    redis = await startRedis();
    image = await exampleImage();
    driver = await testLocalDriver(PREFIX, SUBNET, [redis.port]);
    for (const found of await driver.list()) await driver.stop(found.instanceId);
    const settings = testSettings(uniquePrefix('im'), uniquePrefix('q'), { resyncIntervalMs: 1_000 });
    adapter = await adapterSide(redis.url, settings.queuePrefix);
    harness = await startManager(redis.url, createLocalRuntime(driver), settings);
    api = harness.api;
  }, 180_000);

  afterAll(async () => {
    for (const app of ['example', 'pool', 'scaled']) await api.delete(`/v1/apps/${app}`);
    await waitFor(
      async () => {
        await answerWithdrawals('example');
        await answerWithdrawals('pool');
        await answerWithdrawals('scaled');
        return (await hostIds()).length === 0 && (await harness.store.listLive()).length === 0;
      },
      { description: 'every instance destroyed', timeoutMs: 90_000, intervalMs: 500 },
    );
    await harness.stop();
    await adapter.close();
    await redis.stop();
    expect(await hostLeftovers(PREFIX)).toEqual([]);
  }, 180_000);

  it('runs the example app as ready instances answering HTTP, SSE and WebSocket from the host', async () => {
    await api
      .put('/v1/apps/example')
      .send(exampleAppSpec(image, { kind: 'reusable', capacity: 4, minReplicas: 2, maxReplicas: 4 }))
      .expect(201);
    await waitFor(async () => (await states('example')) === 'ready,ready', {
      description: 'two ready',
      ...LONG,
    });
    const ready = await waitFor(
      async () => ((await events('instance-ready')).length === 2 ? events('instance-ready') : undefined),
      {
        description: 'two instance-ready',
        ...LONG,
      },
    );
    const urls = ready.map((event) => String(event.data['url']));
    expect(new Set(urls).size).toBe(2);
    expect(ready[0]?.data).toMatchObject({
      app: 'example',
      capacity: 4,
      kind: 'reusable',
      mode: 'persistent',
    });
    for (const url of urls) {
      const echoed = await fetch(`${url}/echo`, { method: 'POST', body: 'from the host' });
      expect(await echoed.text()).toBe('from the host');
      const sse = await (await fetch(`${url}/sse?count=3&intervalMs=20`)).text();
      expect(sse.match(/^event: tick$/gm)).toHaveLength(3);
      expect(await wsRoundTrip(`${url.replace('http', 'ws')}/ws`, 'over websocket')).toBe('over websocket');
    }
    const logs = await api
      .get(`/v1/instances/${String(ready[0]?.data['instanceId'])}/logs?tail=20`)
      .expect(200);
    expect(logs.body.source).toBe('live');
    expect(JSON.stringify(logs.body.lines)).toContain('listening');
  }, 120_000);

  it('scales up and down', async () => {
    const spec = (minReplicas: number) =>
      exampleAppSpec(image, { kind: 'reusable', capacity: 2, minReplicas, maxReplicas: 4 });
    await api.put('/v1/apps/scaled').send(spec(1)).expect(201);
    await waitFor(async () => (await states('scaled')) === 'ready', { description: 'one ready', ...LONG });
    await api.put('/v1/apps/scaled').send(spec(3)).expect(200);
    await waitFor(async () => (await states('scaled')) === 'ready,ready,ready', {
      description: 'three ready',
      ...LONG,
    });
    await api.put('/v1/apps/scaled').send(spec(1)).expect(200);
    await waitFor(async () => (await ids('instance-withdraw', 'scaled')).length === 2, {
      description: 'two withdrawals',
      ...LONG,
    });
    const withdrawn = await answerWithdrawals('scaled');
    await waitFor(async () => (await states('scaled')) === 'ready', { description: 'back to one', ...LONG });
    const onHost = await hostIds();
    for (const id of withdrawn) expect(onHost).not.toContain(id);
  }, 120_000);

  it('takes a single-session instance, replaces it at once, then withdraws and destroys it', async () => {
    await api
      .put('/v1/apps/pool')
      .send(exampleAppSpec(image, { kind: 'single-session', warmPool: 1, max: 3 }))
      .expect(201);
    await waitFor(async () => (await states('pool')) === 'ready', { description: 'pool ready', ...LONG });
    const [taken] = await waitFor(
      async () =>
        (await ids('instance-ready', 'pool')).length === 1 ? ids('instance-ready', 'pool') : undefined,
      {
        description: 'announced',
        ...LONG,
      },
    );
    const session = await adapter.reserve(String(taken));
    await waitFor(async () => (await states('pool')) === 'ready,taken', {
      description: 'taken and replaced',
      ...LONG,
    });
    await adapter.release(String(taken), session);
    await waitFor(async () => (await ids('instance-withdraw', 'pool')).includes(String(taken)), {
      description: 'withdraw sent',
      ...LONG,
    });
    await adapter.withdrawn(String(taken));
    await waitFor(async () => (await harness.store.get(String(taken)))?.record.state === 'gone', {
      description: 'destroyed',
      ...LONG,
    });
    expect(await hostIds()).not.toContain(taken);
    expect((await harness.store.get(String(taken)))?.record).toMatchObject({
      outcome: 'completed',
      reason: 'session ended',
    });
    const logs = await api.get(`/v1/instances/${String(taken)}/logs`).expect(200);
    expect(logs.body.source).toBe('archived');
    expect(JSON.stringify(logs.body.lines)).toContain('listening');
    expect(await states('pool')).toBe('ready');
  }, 120_000);

  it('withdraws every instance of a deleted app and removes the app once they are gone', async () => {
    await api.delete('/v1/apps/example').expect(202);
    await waitFor(async () => (await ids('instance-withdraw', 'example')).length === 2, {
      description: 'withdrawals',
      ...LONG,
    });
    for (const event of await events('instance-withdraw')) {
      if (event.data['app'] === 'example')
        expect(event.data).toMatchObject({ reason: 'app deleted', immediate: false });
    }
    await answerWithdrawals('example');
    await waitFor(async () => (await api.get('/v1/apps/example')).status === 404, {
      description: 'app removed',
      ...LONG,
    });
    const gone = await ids('instance-gone', 'example');
    expect(gone.sort()).toEqual((await ids('instance-ready', 'example')).sort());
  }, 120_000);

  it('fails an instance whose image does not exist, leaving nothing behind', async () => {
    await api
      .put('/v1/apps/missing')
      .send(exampleAppSpec('localhost/no-such-image:1', { kind: 'single-session', warmPool: 1, max: 1 }))
      .expect(201);
    await waitFor(
      async () => (await harness.store.listGone()).some((entry) => entry.record.app === 'missing'),
      {
        description: 'failed start',
        ...LONG,
      },
    );
    await api.delete('/v1/apps/missing').expect(202);
    await waitFor(async () => (await api.get('/v1/apps/missing')).status === 404, {
      description: 'app removed',
      ...LONG,
    });
    const failed = (await harness.store.listGone()).filter((entry) => entry.record.app === 'missing');
    expect(failed[failed.length - 1]?.record).toMatchObject({
      outcome: 'failed',
      reason: 'instance failed to start',
    });
    // A retry after the backoff may have been cancelled by the deletion.
    for (const { record } of failed) expect(['failed', 'evicted']).toContain(record.outcome);
    expect(await ids('instance-ready', 'missing')).toEqual([]);
  }, 120_000);
});
