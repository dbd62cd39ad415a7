import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
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
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { hostLeftovers, uniqueLocalHost } from './test-support/local-host.fixture';

// Two replicas against one Redis: kill -9 (and now and then SIGSTOP past the TTL) of whichever holds
// the lease, again and again. The fenced acts of the reconciler must never go back to an older token.
// LEASE_ROUNDS raises the number of rounds (the lease bench runs 100).
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const ROUNDS = Number(process.env['LEASE_ROUNDS'] ?? '25');
const { prefix: PREFIX, subnet: SUBNET } = uniqueLocalHost('il');
const access = createTestAccess();
let redis: RedisFixture;
let connection: Redis;
let replicas: Replica[] = [];
let env: Record<string, string>;
const keyPrefix = uniquePrefix('iml');

describeAsRoot(`instance-manager: one active replica of two (${ROUNDS} rounds)`, () => {
  beforeAll(async () => {
    redis = await startRedis();
    connection = createRedisConnection(redis.url, 'worker');
    env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/root',
      REDIS_URL: redis.url,
      KEY_PREFIX: keyPrefix,
      QUEUE_PREFIX: uniquePrefix('q'),
      LOCAL_PREFIX: PREFIX,
      LOCAL_SUBNET: SUBNET,
      LOCAL_PROTECTED_PORTS: String(redis.port),
      RESYNC_INTERVAL_MS: '200',
      LOG_LEVEL: 'warn',
      ...access.env,
    };
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.child.kill()));
    await connection.quit();
    await redis.stop();
    access.cleanup();
  }, 60_000);

  it(
    'never two reconcilers at once across kill -9 and pauses of the holder; the standby takes over',
    async () => {
      const result = await runLeaseRounds({
        redis: connection,
        leaseKey: `${keyPrefix}:lease`,
        start: async (holderId) => startReplica(MAIN, env, holderId, await findFreePort()),
        rounds: ROUNDS,
        pauseEvery: 5,
        ttlMs: TEST_LEASE.ttlMs,
      });
      replicas = result.replicas;
      expect(checkActs(result.acts)).toEqual([]);
      expect(new Set(result.acts.map((act) => act.token)).size).toBeGreaterThanOrEqual(ROUNDS + 1);
      // A paused holder, resumed after another took over, gave up and exited 1 (lease lost).
      expect(result.resumedExits.every((code) => code === 1)).toBe(true);
      // The new holder acts (its recovery pass) a little before it turns ready.
      const statuses = async () =>
        (await Promise.all(replicas.map((r) => replicaStatus(r.port)))).sort().join();
      await waitFor(async () => (await statuses()) === 'ready,standby', {
        description: 'one active, one standby',
      });
      await reportLeaseRounds('instance-manager', result, process.env['LEASE_REPORT_FILE']);
      await Promise.all(replicas.map((replica) => replica.child.stop()));
      replicas = [];
      expect(await hostLeftovers(PREFIX)).toEqual([]);
    },
    30 * 60_000,
  );
});
