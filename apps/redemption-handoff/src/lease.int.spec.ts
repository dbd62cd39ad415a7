import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
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

// Two handoff replicas against one Redis and one redeemer: kill -9 (and now and then SIGSTOP past the
// TTL) of whichever holds the lease, again and again. Only the holder delivers and polls outcomes (each
// call to the redeemer is a fenced act); both stay ready for intake. LEASE_ROUNDS raises the rounds.
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const REDEEMER_MAIN = fileURLToPath(new URL('../../../tools/redeemer-sim/src/main.ts', import.meta.url));
const ROUNDS = Number(process.env['LEASE_ROUNDS'] ?? '25');
const keyPrefix = uniquePrefix('rhl');
const access = createTestAccess();
let redis: RedisFixture;
let connection: Redis;
let dir: string;
let redeemer: ChildProcessHandle;
let redeemerUrl: string;
let replicas: Replica[] = [];

const leaseActive = async (port: number) =>
  /^lease_active\{[^}]*\} (\d)$/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1];

beforeAll(async () => {
  redis = await startRedis();
  connection = createRedisConnection(redis.url, 'worker');
  dir = await mkdtemp(join(tmpdir(), 'handoff-lease-'));
  await writeFile(join(dir, 'intake'), `intake-${keyPrefix}-secret\n`, { mode: 0o600 });
  await writeFile(join(dir, 'redeemer'), `redeemer-${keyPrefix}-secret\n`, { mode: 0o600 });
  const port = await findFreePort();
  redeemerUrl = `http://127.0.0.1:${port}`;
  redeemer = startChildProcess(process.execPath, ['--import', 'tsx', REDEEMER_MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: String(port),
      SIM_DB_PATH: join(dir, 'redeemer.sqlite'),
      REDEEMER_SECRET_FILE: join(dir, 'redeemer'),
      LOG_LEVEL: 'warn',
    },
  });
  await waitFor(async () => (await fetch(`${redeemerUrl}/healthz`)).ok, {
    description: 'the redeemer simulator',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.child.kill()));
  await redeemer?.stop();
  await connection.quit();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
  access.cleanup();
}, 60_000);

describe(`redemption-handoff: one active delivery of two replicas (${ROUNDS} rounds)`, () => {
  it(
    'only the holder talks to the redeemer; both stay ready for intake; never two active at once',
    async () => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        REDIS_URL: redis.url,
        KEY_PREFIX: keyPrefix,
        QUEUE_PREFIX: uniquePrefix('q'),
        INTAKE_SECRET_FILE: join(dir, 'intake'),
        REDEEMER_URL: redeemerUrl,
        REDEEMER_SECRET_FILE: join(dir, 'redeemer'),
        OUTCOME_POLL_MS: '100',
        LOG_LEVEL: 'warn',
        ...access.env,
      };
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
      expect(result.resumedExits.every((code) => code === 1)).toBe(true);
      expect(await Promise.all(replicas.map((replica) => replicaStatus(replica.port)))).toEqual([
        'ready',
        'ready',
      ]);
      // The new holder talks to the redeemer a little before its active parts have all started.
      await waitFor(
        async () =>
          (await Promise.all(replicas.map((replica) => leaseActive(replica.port)))).sort().join() === '0,1',
        { description: 'one replica active' },
      );
      await reportLeaseRounds('redemption-handoff', result, process.env['LEASE_REPORT_FILE']);
      await Promise.all(replicas.map((replica) => replica.child.stop()));
      replicas = [];
    },
    30 * 60_000,
  );
});
