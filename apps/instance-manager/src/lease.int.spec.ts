import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
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
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { hostLeftovers, uniqueLocalHost } from './test-support/local-host.fixture';

// Two replicas against one Redis: kill -9 (and now and then SIGSTOP past the TTL) of whichever holds
// the lease, again and again. The fenced acts of the reconciler must never go back to an older token.
// LEASE_ROUNDS raises the number of rounds (the lease bench runs 100).
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const ROUNDS = leaseSpecRounds();
const { prefix: PREFIX, subnet: SUBNET } = uniqueLocalHost('il');
let lease: LeaseSpecWorld;
let env: Record<string, string>;
const keyPrefix = uniquePrefix('iml');

describeAsRoot(`instance-manager: one active replica of two (${ROUNDS} rounds)`, () => {
  beforeAll(async () => {
    lease = await openLeaseWorld();
    const { redis } = lease;
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
      ...lease.access.env,
    };
  }, 60_000);

  afterAll(() => closeLeaseWorld(lease), 60_000);

  it(
    'never two reconcilers at once across kill -9 and pauses of the holder; the standby takes over',
    async () => {
      const result = await runLeaseSpecRounds(lease, {
        leaseKey: `${keyPrefix}:lease`,
        start: async (holderId) => startReplica(MAIN, env, holderId, await findFreePort()),
      });
      expect(result.problems).toEqual([]);
      expect(new Set(result.acts.map((act) => act.token)).size).toBeGreaterThanOrEqual(ROUNDS + 1);
      // The new holder acts (its recovery pass) a little before it turns ready.
      const statuses = async () =>
        (await Promise.all(lease.replicas.map((r) => replicaStatus(r.port)))).sort().join();
      await waitFor(async () => (await statuses()) === 'ready,standby', {
        description: 'one active, one standby',
      });
      await finishLeaseSpec(lease, 'instance-manager', result);
      expect(await hostLeftovers(PREFIX)).toEqual([]);
    },
    30 * 60_000,
  );
});
