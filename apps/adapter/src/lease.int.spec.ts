import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisConnection } from '@sandbox/queue';
import {
  checkActs,
  createTestAccess,
  findFreePort,
  replicaStatus,
  reportLeaseRounds,
  runLeaseRounds,
  startRedis,
  startReplica,
  TEST_LEASE,
  uniquePrefix,
  waitFor,
} from '@sandbox/testing';
import type { RedisFixture, Replica } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { openQueues, readyEvent, type AdapterQueues } from './__fixtures__/adapter-harness';
import { runnerView, startSimWorld, type SimWorld } from './__fixtures__/world';

// Two adapter replicas against one Redis and one Node: kill -9 (and now and then SIGSTOP past the TTL)
// of whichever holds the lease, again and again. Only the holder heartbeats (each heartbeat is a
// fenced act); the registration is never made twice. LEASE_ROUNDS raises the rounds (the bench: 100).
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const ROUNDS = Number(process.env['LEASE_ROUNDS'] ?? '25');
const prefix = uniquePrefix('adapter-lease');
const access = createTestAccess();
let redis: RedisFixture;
let connection: Redis;
let world: SimWorld;
let queues: AdapterQueues;
let replicas: Replica[] = [];

beforeAll(async () => {
  redis = await startRedis();
  connection = createRedisConnection(redis.url, 'worker');
  world = await startSimWorld({ heartbeatInterval: '300ms', heartbeatTtl: '5s' });
  queues = openQueues(redis.url, prefix);
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.child.kill()));
  await queues.close();
  await world.close();
  await connection.quit();
  await redis.stop();
  access.cleanup();
}, 60_000);

describe(`adapter: one active replica of two (${ROUNDS} rounds)`, () => {
  it(
    'only the holder heartbeats; takeovers resume the saved registration, never two active at once',
    async () => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        REDIS_URL: redis.url,
        NODE_URL: world.proxy.url,
        BOOTSTRAP_SECRET_FILE: world.secretFile,
        QUEUE_PREFIX: prefix,
        STATE_PREFIX: `${prefix}-adapter`,
        LOG_LEVEL: 'warn',
        ...access.env,
      };
      let queued = false;
      const result = await runLeaseRounds({
        redis: connection,
        leaseKey: `${prefix}-adapter:lease`,
        start: async (holderId) => {
          const replica = startReplica(MAIN, env, holderId, await findFreePort());
          if (!queued) {
            queued = true;
            await queues.instanceEvents.add('instance-ready', readyEvent('lease-1'));
          }
          return replica;
        },
        rounds: ROUNDS,
        pauseEvery: 5,
        ttlMs: TEST_LEASE.ttlMs,
      });
      replicas = result.replicas;
      expect(checkActs(result.acts)).toEqual([]);
      expect(result.acts.every((act) => act.act === 'heartbeat')).toBe(true);
      expect(result.resumedExits.every((code) => code === 1)).toBe(true);
      // Registered once; every later holder resumed it with the saved credential.
      expect(world.proxy.registrations).toBe(1);
      // The new holder heartbeats (restored registrations) a little before it turns ready.
      const statuses = () => Promise.all(replicas.map((replica) => replicaStatus(replica.port)));
      await waitFor(async () => (await statuses()).sort().join() === 'ready,standby', {
        description: 'one active, one standby',
      });
      const active = replicas[(await statuses()).indexOf('ready')];
      const api = { url: `http://127.0.0.1:${active?.port}`, headers: access.headers('read') };
      await waitFor(async () => (await runnerView(api, 'lease-1'))?.state === 'registered', {
        description: 'lease-1 registered at the active replica',
      });
      await reportLeaseRounds('adapter', result, process.env['LEASE_REPORT_FILE']);
      await Promise.all(replicas.map((replica) => replica.child.stop()));
      replicas = [];
    },
    30 * 60_000,
  );
});
