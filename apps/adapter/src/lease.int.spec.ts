import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
import { openQueues, readyEvent, type AdapterQueues } from './__fixtures__/adapter-harness';
import { runnerView, startSimWorld, type SimWorld } from './__fixtures__/world';

// Two adapter replicas against one Redis and one Node: kill -9 (and now and then SIGSTOP past the TTL)
// of whichever holds the lease, again and again. Only the holder heartbeats (each heartbeat is a
// fenced act); the registration is never made twice. LEASE_ROUNDS raises the rounds (the bench: 100).
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const prefix = uniquePrefix('adapter-lease');
let lease: LeaseSpecWorld;
let world: SimWorld;
let queues: AdapterQueues;

beforeAll(async () => {
  lease = await openLeaseWorld();
  world = await startSimWorld({ heartbeatInterval: '300ms', heartbeatTtl: '5s' });
  queues = openQueues(lease.redis.url, prefix);
}, 60_000);

afterAll(
  () =>
    closeLeaseWorld(
      lease,
      () => queues.close(),
      () => world.close(),
    ),
  60_000,
);

describe(`adapter: one active replica of two (${leaseSpecRounds()} rounds)`, () => {
  it(
    'only the holder heartbeats; takeovers resume the saved registration, never two active at once',
    async () => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        REDIS_URL: lease.redis.url,
        NODE_URL: world.proxy.url,
        BOOTSTRAP_SECRET_FILE: world.secretFile,
        QUEUE_PREFIX: prefix,
        STATE_PREFIX: `${prefix}-adapter`,
        LOG_LEVEL: 'warn',
        ...lease.access.env,
      };
      let queued = false;
      const result = await runLeaseSpecRounds(lease, {
        leaseKey: `${prefix}-adapter:lease`,
        start: async (holderId) => {
          const replica = startReplica(MAIN, env, holderId, await findFreePort());
          if (!queued) {
            queued = true;
            await queues.instanceEvents.add('instance-ready', readyEvent('lease-1'));
          }
          return replica;
        },
      });
      expect(result.problems).toEqual([]);
      expect(result.acts.every((act) => act.act === 'heartbeat')).toBe(true);
      // Registered once; every later holder resumed it with the saved credential.
      expect(world.proxy.registrations).toBe(1);
      // The new holder heartbeats (restored registrations) a little before it turns ready.
      const statuses = () => Promise.all(lease.replicas.map((replica) => replicaStatus(replica.port)));
      await waitFor(async () => (await statuses()).sort().join() === 'ready,standby', {
        description: 'one active, one standby',
      });
      const active = lease.replicas[(await statuses()).indexOf('ready')];
      const api = { url: `http://127.0.0.1:${active?.port}`, headers: lease.access.headers('read') };
      await waitFor(async () => (await runnerView(api, 'lease-1'))?.state === 'registered', {
        description: 'lease-1 registered at the active replica',
      });
      await finishLeaseSpec(lease, 'adapter', result);
    },
    30 * 60_000,
  );
});
