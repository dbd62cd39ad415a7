import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestAccess,
  findFreePort,
  startRedis,
  uniquePrefix,
  waitFor,
  type RedisFixture,
} from '@sandbox/testing';
import { openQueues, readyEvent, type AdapterQueues } from './__fixtures__/adapter-harness';
import { spawnAdapter, type AdapterProcess } from './__fixtures__/adapter-process';
import { runnerView, startSimWorld, type SimWorld } from './__fixtures__/world';

let redis: RedisFixture;
let world: SimWorld;
let queues: AdapterQueues;
let port: number;
const running: AdapterProcess[] = [];
const prefix = uniquePrefix('adapter-main');
const access = createTestAccess();

const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  PORT: String(port),
  REDIS_URL: redis.url,
  NODE_URL: world.proxy.url,
  BOOTSTRAP_SECRET_FILE: world.secretFile,
  QUEUE_PREFIX: prefix,
  STATE_PREFIX: `${prefix}-adapter`,
  LOG_LEVEL: 'info',
  // One replica restarted in place (a pod's container): under the same holder name it takes its lease
  // back at once instead of waiting out the TTL of the killed process.
  LEASE_HOLDER_ID: 'adapter-0',
  ...access.env,
  ...overrides,
});
const start = (overrides?: Record<string, string>): AdapterProcess => {
  const child = spawnAdapter(env(overrides));
  running.push(child);
  return child;
};
const ready = () =>
  waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, {
    description: 'the adapter to be ready',
    timeoutMs: 30_000,
  });
const api = () => ({ url: `http://127.0.0.1:${port}`, headers: access.headers('read') });

beforeAll(async () => {
  redis = await startRedis();
  world = await startSimWorld({ heartbeatInterval: '500ms', heartbeatTtl: '3s' });
  queues = openQueues(redis.url, prefix);
  port = await findFreePort();
});

afterAll(async () => {
  await Promise.all(running.map((child) => child.kill('SIGKILL')));
  await queues?.close();
  await world?.close();
  await redis?.stop();
  access.cleanup();
});

describe('adapter process (main.ts)', () => {
  it('starts, registers, survives SIGKILL without registering again, and stops cleanly on SIGTERM', async () => {
    const first = start();
    await ready();
    await queues.instanceEvents.add('instance-ready', readyEvent('proc-1'));
    await waitFor(async () => (await runnerView(api(), 'proc-1'))?.state === 'registered', {
      description: 'proc-1 registered',
      timeoutMs: 20_000,
    });
    expect(world.proxy.registrations).toBe(1);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    const second = start();
    await ready();
    const since = Date.now();
    await waitFor(
      async () => {
        const view = await runnerView(api(), 'proc-1');
        return view?.state === 'registered' && view.lastBeat !== null && Date.parse(view.lastBeat.at) > since;
      },
      { description: 'heartbeats resumed', timeoutMs: 20_000 },
    );
    expect(world.proxy.registrations).toBe(1);
    expect(await second.kill('SIGTERM')).toBe(0);
    expect(second.output()).toContain('"shutdown complete"');
    expect(second.output()).not.toContain(world.secret);
  }, 60_000);

  it('refuses to start with an invalid configuration, naming every problem', async () => {
    const child = start({
      BOOTSTRAP_SECRET_FILE: '',
      NODE_URL: 'ftp://node',
      MAX_CONCURRENT_REQUESTS: '500',
    });
    expect(await child.exited).toBe(1);
    const output = child.output();
    for (const field of ['BOOTSTRAP_SECRET_FILE', 'NODE_URL', 'MAX_CONCURRENT_REQUESTS'])
      expect(output).toContain(field);
  });

  it('refuses a bootstrap secret file ending with a newline, without printing the secret', async () => {
    const file = join(world.dir, 'newline-secret');
    await writeFile(file, `${world.secret}\n`);
    const child = start({ BOOTSTRAP_SECRET_FILE: file });
    expect(await child.exited).toBe(1);
    expect(child.output()).toContain('ends with a line break');
    expect(child.output()).not.toContain(world.secret);
  });
});
