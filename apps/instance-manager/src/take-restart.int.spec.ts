import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import type { SandboxDriver } from '@sandbox/sandbox-local';
import {
  createTestAccess,
  findFreePort,
  HOLD_JOBS_PRELOAD,
  startRedis,
  uniquePrefix,
  waitFor,
  type RedisFixture,
} from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { createInstanceStore, type InstanceStore } from './store/instance-store';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import {
  exampleAppSpec,
  exampleImage,
  testLocalDriver,
  uniqueLocalHost,
} from './test-support/local-host.fixture';
import { adapterSide } from './test-support/manager-harness.fixture';
import { startManagerProcess, type ManagerProcess } from './test-support/manager-process.fixture';

// kill -9 of the manager process while it handles a take (`session-reserved`), then a restart: the
// warm pool's replacement must come as soon as the manager is back, not once BullMQ's stalled check
// finds the job (the dead worker's 30 s lock, then up to a 30 s stalled interval).
const { prefix: PREFIX, subnet: SUBNET } = uniqueLocalHost('it');
const APP = 'take-restart';
/** BullMQ's default lock duration: the stalled check cannot see the job as stalled before it ends. */
const DEAD_WORKER_LOCK_MS = 30_000;

let redis: RedisFixture;
let connection: Redis;
let store: InstanceStore;
let driver: SandboxDriver;
let adapter: Awaited<ReturnType<typeof adapterSide>>;
let manager: ManagerProcess | undefined;
let env: Record<string, string>;
let port = 0;
let image = '';
const access = createTestAccess();

const readyIds = async (): Promise<string[]> =>
  (await store.listLive(APP))
    .filter((entry) => entry.record.state === 'ready')
    .map((entry) => entry.record.id);
/** Waits for a ready instance none of `known` is (the pool's replacement); returns its id. */
const replacement = async (known: string[], timeoutMs: number): Promise<string> =>
  waitFor(async () => (await readyIds()).find((id) => !known.includes(id)), {
    description: 'the warm pool replacement to be ready',
    timeoutMs,
    intervalMs: 20,
  });

describeAsRoot('instance-manager killed while it handles a take', () => {
  beforeAll(async () => {
    redis = await startRedis();
    image = await exampleImage();
    driver = await testLocalDriver(PREFIX, SUBNET, [redis.port]);
    const keyPrefix = uniquePrefix('imt');
    const queuePrefix = uniquePrefix('q');
    connection = createRedisConnection(redis.url, 'worker');
    store = createInstanceStore({ redis: connection, prefix: keyPrefix, retentionMs: 3_600_000 });
    adapter = await adapterSide(redis.url, queuePrefix);
    port = await findFreePort();
    env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/root',
      REDIS_URL: redis.url,
      KEY_PREFIX: keyPrefix,
      QUEUE_PREFIX: queuePrefix,
      LOCAL_PREFIX: PREFIX,
      LOCAL_SUBNET: SUBNET,
      LOCAL_PROTECTED_PORTS: String(redis.port),
      LOCAL_CAPACITY_CPUS: '64',
      READY_TIMEOUT_MS: '30000',
      LOG_LEVEL: 'warn',
      ...access.env,
    };
    manager = await startManagerProcess(env, port);
  }, 180_000);

  afterAll(async () => {
    await manager?.kill9();
    for (const found of await driver.list()) await driver.stop(found.instanceId);
    await adapter.close();
    await connection.quit();
    await redis.stop();
    access.cleanup();
  }, 120_000);

  it('starts the replacement as soon as it is back', async () => {
    const put = await fetch(`http://127.0.0.1:${port}/v1/apps/${APP}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...access.headers('admin') },
      body: JSON.stringify(exampleAppSpec(image, { kind: 'single-session', warmPool: 1, max: 4 })),
    });
    expect(put.status).toBeLessThan(300);
    const first = await replacement([], 90_000);

    // An ordinary take: the time from the reservation to the ready replacement.
    const takenAt = Date.now();
    await adapter.reserve(first);
    const second = await replacement([first], 60_000);
    const ordinaryMs = Date.now() - takenAt;

    // The next take lands in a manager that holds every job it takes, and dies holding it.
    expect(await manager?.stop()).toBe(0);
    manager = await startManagerProcess(env, port, 60_000, ['--import', HOLD_JOBS_PRELOAD]);
    await adapter.reserve(second);
    await waitFor(async () => manager?.output().includes(`holding ${SESSION_EVENTS_QUEUE.name} `) === true, {
      description: 'the manager to hold the take',
      timeoutMs: 10_000,
    });
    expect((await store.get(second))?.record.state).toBe('ready');
    await manager?.kill9();

    const restartedAt = Date.now();
    manager = await startManagerProcess(env, port);
    const readyAt = Date.now();
    // Well inside the dead worker's lock: only the reclaim at start can have run the take by then.
    const third = await replacement([first, second], DEAD_WORKER_LOCK_MS - 5_000);
    const replacedAt = Date.now();
    expect((await store.get(second))?.record.state).toBe('taken');
    expect([first, second]).not.toContain(third);
    process.stdout.write(
      `orphaned take: restart ${readyAt - restartedAt} ms, then replacement ready in ${replacedAt - readyAt} ms ` +
        `(${replacedAt - restartedAt} ms after the restart began); an ordinary take's replacement took ${ordinaryMs} ms\n`,
    );
  }, 300_000);
});
