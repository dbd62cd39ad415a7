import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { INSTANCE_EVENTS_QUEUE } from '@sandbox/protocol';
import {
  createTestAccess,
  findFreePort,
  HOLD_JOBS_PRELOAD,
  holdingLine,
  startRedis,
  uniquePrefix,
  waitFor,
  type RedisFixture,
} from '@sandbox/testing';
import { openQueues, readyEvent, type AdapterQueues } from '../__fixtures__/adapter-harness';
import { spawnAdapter, type AdapterProcess } from '../__fixtures__/adapter-process';
import { runnerView, startSimWorld, type SimWorld } from '../__fixtures__/world';

// kill -9 of the adapter process while an `instance-ready` job is in flight, then a restart: the
// instance must be registered with Node right after the restart, not once BullMQ's stalled check
// finds the job (the dead worker's 30 s lock, then up to a 30 s stalled interval).
let redis: RedisFixture;
let world: SimWorld;
let queues: AdapterQueues;
let port: number;
const running: AdapterProcess[] = [];
const prefix = uniquePrefix('adapter-orphan');
const access = createTestAccess();

/** BullMQ's default lock duration: the stalled check cannot see the job as stalled before it ends. */
const DEAD_WORKER_LOCK_MS = 30_000;

const start = (nodeArgs: string[] = []): AdapterProcess => {
  const env = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    REDIS_URL: redis.url,
    NODE_URL: world.proxy.url,
    BOOTSTRAP_SECRET_FILE: world.secretFile,
    QUEUE_PREFIX: prefix,
    STATE_PREFIX: `${prefix}-adapter`,
    LOG_LEVEL: 'warn',
    // One replica restarted in place (a pod's container): it takes its lease back at once.
    LEASE_HOLDER_ID: 'adapter-0',
    ...access.env,
  };
  const child = spawnAdapter(env, { nodeArgs });
  running.push(child);
  return child;
};
const ready = () =>
  waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    {
      description: 'the adapter to be ready',
      timeoutMs: 30_000,
    },
  );
const api = () => ({ url: `http://127.0.0.1:${port}`, headers: access.headers('read') });
const registered = (instanceId: string, timeoutMs: number) =>
  waitFor(async () => (await runnerView(api(), instanceId))?.state === 'registered', {
    description: `${instanceId} registered with Node`,
    timeoutMs,
    intervalMs: 20,
  });

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

describe('adapter killed while an instance-ready job is in flight', () => {
  it('registers the instance right after the restart', async () => {
    const holding = start(['--import', HOLD_JOBS_PRELOAD]);
    await ready();
    const job = await queues.instanceEvents.add('instance-ready', readyEvent('orphan-1'));
    const line = holdingLine(INSTANCE_EVENTS_QUEUE.name, String(job.id));
    await waitFor(async () => holding.output().includes(line), {
      description: 'the adapter to hold the instance-ready job',
      timeoutMs: 10_000,
    });
    expect(await holding.kill('SIGKILL')).toBe('SIGKILL');

    const restartedAt = Date.now();
    start();
    await ready();
    const readyAt = Date.now();
    // Well inside the dead worker's lock: only the reclaim at start can have run the job by then.
    await registered('orphan-1', DEAD_WORKER_LOCK_MS - 5_000);
    const registeredAt = Date.now();
    expect(world.proxy.registrations).toBe(1);
    expect(await queues.instanceEvents.queue.getJobState(String(job.id))).toBe('completed');

    // The same work without a crash, on the restarted adapter: the ordinary time.
    const addedAt = Date.now();
    await queues.instanceEvents.add('instance-ready', readyEvent('ordinary-1'));
    await registered('ordinary-1', 20_000);
    const ordinaryMs = Date.now() - addedAt;
    process.stdout.write(
      `orphaned instance-ready: restart ${readyAt - restartedAt} ms, then registered in ${registeredAt - readyAt} ms ` +
        `(${registeredAt - restartedAt} ms after the restart began); an ordinary instance-ready took ${ordinaryMs} ms\n`,
    );
  }, 120_000);
});
