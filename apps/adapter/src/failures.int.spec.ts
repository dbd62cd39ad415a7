import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { HeartbeatRuleMessage } from '@sandbox/protocol';
import { Redis } from 'ioredis';
import {
  openQueues,
  readyEvent,
  startAdapter,
  type AdapterHarness,
  type AdapterQueues,
} from './__fixtures__/adapter-harness';
import { startAdapterWorld, type AdapterWorld } from './__fixtures__/adapter-world';
import { canarySecret, metricValue, runnerView, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let world: SimWorld;
let adapter: AdapterHarness;
let queues: AdapterQueues;
let wrong: { adapter: AdapterHarness; queues: AdapterQueues; file: string; secret: string };
const prefix = uniquePrefix('adapter-failures');
const wrongPrefix = uniquePrefix('adapter-wrong-secret');
// 1 USD = 10^15 wei: a fixed price of 999999999 USD does not fit Node's int64 wei.
const PAID = ['--paid', '--wei-per-usd', '1000000000000000'];

let parts: AdapterWorld | undefined;
beforeAll(async () => {
  const env = { DEFAULT_HEARTBEAT_INTERVAL: '500ms' };
  const sim = { heartbeatInterval: '500ms', heartbeatTtl: '2s', extraArgs: PAID };
  parts = await startAdapterWorld({ prefix, sim, adapterEnv: env });
  ({ redis, world, adapter, queues } = parts);
  const secret = canarySecret();
  const file = join(world.dir, 'wrong-secret');
  await writeFile(file, secret);
  wrong = {
    file,
    secret,
    queues: openQueues(redis.url, wrongPrefix),
    adapter: await startAdapter({
      redisUrl: redis.url,
      nodeUrl: world.proxy.url,
      secretFile: file,
      prefix: wrongPrefix,
      env,
    }),
  };
});

afterAll(async () => {
  await wrong?.adapter.stop();
  await wrong?.queues.close();
  await parts?.close();
});

describe('registration failures', () => {
  it("marks a registration Node refuses as failed, with Node's reason, and reports it", async () => {
    await queues.instanceEvents.add(
      'instance-ready',
      readyEvent('too-pricey', { price: { usd: '999999999', unit: 'fixed' } }),
    );
    await queues.instanceEvents.add(
      'instance-ready',
      readyEvent('priced-ok', { price: { usd: '0.01', unit: 'hour' } }),
    );
    const job = await waitFor(
      async () => (await queues.sessionEvents()).find((found) => found.name === 'registration-failed'),
      { description: 'registration-failed', timeoutMs: 15_000 },
    );
    expect(job.id).toBe('registration-failed.too-pricey');
    expect(job.data).toMatchObject({
      instanceId: 'too-pricey',
      runnerId: 'too-pricey',
      status: 400,
      reason: 'converted wei price exceeds supported range',
    });
    const view = await runnerView(adapter, 'too-pricey');
    expect(view).toMatchObject({
      state: 'failed',
      failure: { status: 400, reason: 'converted wei price exceeds supported range' },
      lastError: { kind: 'http', status: 400 },
    });
    await waitFor(async () => (await runnerView(adapter, 'priced-ok'))?.state === 'registered', {
      description: 'the priced instance registered',
      timeoutMs: 15_000,
    });
  });

  it("shows a free app refused by a paid Node: Node's reason in the report, the API and a metric", async () => {
    await queues.instanceEvents.add('instance-ready', readyEvent('free-on-paid'));
    const reason = HeartbeatRuleMessage.PositivePriceOnChain;
    const job = await waitFor(
      async () =>
        (await queues.sessionEvents()).find((found) => found.id === 'registration-failed.free-on-paid'),
      { description: 'registration-failed for the free app', timeoutMs: 15_000 },
    );
    expect(job.data).toMatchObject({ instanceId: 'free-on-paid', status: 400, reason });
    expect(await runnerView(adapter, 'free-on-paid')).toMatchObject({
      state: 'failed',
      failure: { status: 400, reason },
    });
    expect(await metricValue(adapter.url, 'adapter_failed_runners', { status: '400', reason })).toBe(1);
  });

  it('keeps retrying with a wrong bootstrap secret, never reports it as a refused spec, and recovers once the file is fixed', async () => {
    // Priced: Node checks the price before the credential, and this Node is paid.
    await wrong.queues.instanceEvents.add(
      'instance-ready',
      readyEvent('wrong-1', { price: { usd: '0.01', unit: 'hour' } }),
    );
    const view = await waitFor(
      async () => {
        const found = await runnerView(wrong.adapter, 'wrong-1');
        return found?.lastError?.status === 401 && (found.lastError.consecutive ?? 0) >= 2
          ? found
          : undefined;
      },
      { description: 'repeated 401s', timeoutMs: 15_000 },
    );
    expect(view).toMatchObject({
      state: 'registering',
      failure: null,
      lastError: { message: 'invalid runner credential' },
    });
    expect((await wrong.queues.sessionEvents()).filter((job) => job.name === 'registration-failed')).toEqual(
      [],
    );
    await writeFile(wrong.file, world.secret);
    await waitFor(async () => (await runnerView(wrong.adapter, 'wrong-1'))?.state === 'registered', {
      description: 'registration with the fixed secret',
      timeoutMs: 15_000,
    });
  });

  it('never lets a bootstrap secret or a heartbeat credential out: logs, metrics, API, job data', async () => {
    const client = new Redis(redis.url);
    const keys = [
      ...(await client.keys(`${prefix}-adapter:registration:*`)),
      ...(await client.keys(`${wrongPrefix}-adapter:registration:*`)),
    ];
    const credentials = (await Promise.all(keys.map((key) => client.get(key))))
      .map((text) => (JSON.parse(text ?? '{}') as { node?: { credential?: string } | null }).node?.credential)
      .filter((value): value is string => typeof value === 'string');
    await client.quit();
    expect(credentials.length).toBeGreaterThanOrEqual(2);
    const secrets = [world.secret, wrong.secret, ...credentials];
    const outputs = [
      adapter.logs(),
      wrong.adapter.logs(),
      await (await fetch(`${adapter.url}/metrics`)).text(),
      await (await fetch(`${wrong.adapter.url}/metrics`)).text(),
      await (await fetch(`${adapter.url}/v1/runners`, { headers: adapter.headers })).text(),
      await (await fetch(`${wrong.adapter.url}/v1/runners`, { headers: wrong.adapter.headers })).text(),
      await (await fetch(`${adapter.url}/v1/runners/priced-ok`, { headers: adapter.headers })).text(),
      await queues.allJobData(),
      await wrong.queues.allJobData(),
    ];
    expect(adapter.logs()).toContain('runner registered with Node');
    // Not even an attempt to log one: the scrubber had nothing to replace.
    expect(adapter.logs() + wrong.adapter.logs()).not.toContain('[secret]');
    for (const output of outputs) for (const value of secrets) expect(output).not.toContain(value);
  });
});
