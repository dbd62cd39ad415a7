import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import {
  closeLeaseWorld,
  findFreePort,
  finishLeaseSpec,
  leaseSpecRounds,
  openLeaseWorld,
  replicaStatus,
  runLeaseSpecRounds,
  startReplica,
  uniquePrefix,
  waitFor,
} from '@sandbox/testing';
import type { LeaseSpecWorld } from '@sandbox/testing';

// Two handoff replicas against one Redis and one redeemer: kill -9 (and now and then SIGSTOP past the
// TTL) of whichever holds the lease, again and again. Only the holder delivers and polls outcomes (each
// call to the redeemer is a fenced act); both stay ready for intake. LEASE_ROUNDS raises the rounds.
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const REDEEMER_MAIN = fileURLToPath(new URL('../../../tools/redeemer-sim/src/main.ts', import.meta.url));
const keyPrefix = uniquePrefix('rhl');
let lease: LeaseSpecWorld;
let dir: string;
let redeemer: ChildProcessHandle;
let redeemerUrl: string;

const leaseActive = async (port: number) =>
  /^lease_active\{[^}]*\} (\d)$/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1];

beforeAll(async () => {
  lease = await openLeaseWorld();
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

afterAll(
  () =>
    closeLeaseWorld(
      lease,
      async () => redeemer?.stop(),
      () => rm(dir, { recursive: true, force: true }),
    ),
  60_000,
);

describe(`redemption-handoff: one active delivery of two replicas (${leaseSpecRounds()} rounds)`, () => {
  it(
    'only the holder talks to the redeemer; both stay ready for intake; never two active at once',
    async () => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        REDIS_URL: lease.redis.url,
        KEY_PREFIX: keyPrefix,
        QUEUE_PREFIX: uniquePrefix('q'),
        INTAKE_SECRET_FILE: join(dir, 'intake'),
        REDEEMER_URL: redeemerUrl,
        REDEEMER_SECRET_FILE: join(dir, 'redeemer'),
        OUTCOME_POLL_MS: '100',
        LOG_LEVEL: 'warn',
        ...lease.access.env,
      };
      const result = await runLeaseSpecRounds(lease, {
        leaseKey: `${keyPrefix}:lease`,
        start: async (holderId) => startReplica(MAIN, env, holderId, await findFreePort()),
      });
      expect(result.problems).toEqual([]);
      expect(await Promise.all(lease.replicas.map((replica) => replicaStatus(replica.port)))).toEqual([
        'ready',
        'ready',
      ]);
      // The new holder talks to the redeemer a little before its active parts have all started.
      await waitFor(
        async () =>
          (await Promise.all(lease.replicas.map((replica) => leaseActive(replica.port)))).sort().join() ===
          '0,1',
        { description: 'one replica active' },
      );
      await finishLeaseSpec(lease, 'redemption-handoff', result);
    },
    30 * 60_000,
  );
});
