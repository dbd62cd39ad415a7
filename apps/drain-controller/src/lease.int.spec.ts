// Two drain-controller replicas against one Redis, one adapter and one Node: drains run while the
// lease holder is killed (kill -9) at random moments and comes back, as a Deployment's pod would.
// Every drain must end `done`, Node must be replaced exactly once per drain, only one replica is
// ever active, and the fenced replacements never go back to an older token. LEASE_DRAINS sets the
// number of drains.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DrainRecord } from '@sandbox/protocol';
import { createRedisConnection } from '@sandbox/queue';
import {
  checkActs,
  createTestAccess,
  findFreePort,
  replicaStatus,
  startReplica,
  waitFor,
  waitUntilServing,
  type Replica,
} from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { readLeaseActs } from '@sandbox/lease/testing';
import { startDrainWorld, type DrainWorld } from './__fixtures__/drain-world';
import { followDrainWhileKilling, seededRandom } from './__fixtures__/killing-loop';
import { DRAIN_MAIN } from './__fixtures__/processes';

const DRAINS = Number(process.env['LEASE_DRAINS'] ?? '5');
const BASE_ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp' };
const INSTANCES = ['lease-i-1', 'lease-i-2'];
const access = createTestAccess();
let world: DrainWorld;
let connection: Redis;
let leaseKey: string;
const replicas = new Map<string, Replica>();
let totalKills = 0;
// Seeded, so a failing run can be replayed with LEASE_SEED.
const SEED = Number(process.env['LEASE_SEED'] ?? Date.now() % 100_000);
const random = seededRandom(SEED);

const simStarts = () => world.sim.process.output().split('"node-sim listening"').length - 1;
const start = async (holderId: string, port?: number): Promise<Replica> => {
  const env = { ...BASE_ENV, ...world.controllerEnv({ LOG_LEVEL: 'warn', NODE_ENV: 'production' }) };
  const replica = startReplica(DRAIN_MAIN, env, holderId, port ?? (await findFreePort()));
  replicas.set(holderId, replica);
  return replica;
};
const statuses = async () =>
  Promise.all([...replicas.values()].map((replica) => replicaStatus(replica.port).catch(() => 'down')));
const holderId = async () => (await connection.get(leaseKey))?.split(' ')[1];
const active = () =>
  waitFor(
    async () => {
      const id = await holderId();
      const replica = id === undefined ? undefined : replicas.get(id);
      return replica !== undefined && (await replicaStatus(replica.port).catch(() => '')) === 'ready'
        ? replica
        : undefined;
    },
    { description: 'an active replica', timeoutMs: 30_000, intervalMs: 50 },
  );
const readDrain = async (id: string): Promise<DrainRecord | undefined> => {
  for (const replica of replicas.values()) {
    const response = await fetch(`http://127.0.0.1:${replica.port}/v1/drains/${id}`, {
      headers: access.headers('read'),
      signal: AbortSignal.timeout(2_000),
    }).catch(() => undefined);
    if (response?.ok === true) return (await response.json()) as DrainRecord;
  }
  return undefined;
};

/** Kills the holder and starts it again on its port, as a Deployment replaces a pod. */
async function killHolder(): Promise<void> {
  const id = await holderId();
  const holder = id === undefined ? undefined : replicas.get(id);
  if (holder === undefined) return;
  await holder.child.kill();
  await waitUntilServing(await start(holder.holderId, holder.port));
}

async function drainWhileKilling(): Promise<DrainRecord> {
  const created = await fetch(`http://127.0.0.1:${(await active()).port}/v1/drains`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...access.headers('admin') },
    // A quiet period as long as the window: the drain runs to its 2 s deadline, so it is still going at
    // the first look (at most 1.5 s in), where the loop always kills.
    body: JSON.stringify({ window: '2s', quietPeriod: '2s', reason: 'lease', target: { restart: true } }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as DrainRecord;
  return followDrainWhileKilling({
    id,
    read: readDrain,
    random,
    // At least one kill per drain, at a random moment of it; now and then a second.
    shouldKill: (kills) => kills === 0 || (kills < 2 && random() < 0.4),
    kill: async () => {
      totalKills += 1;
      await killHolder();
    },
  });
}

beforeAll(async () => {
  world = await startDrainWorld('drain-lease', { baseEnv: BASE_ENV, access });
  connection = createRedisConnection(world.redis.url, 'worker');
  leaseKey = `${world.prefix}-drain:lease`;
  await world.registerInstances(INSTANCES);
  await Promise.all([start('controller-a'), start('controller-b')]);
  await Promise.all([...replicas.values()].map((replica) => waitUntilServing(replica)));
}, 120_000);

afterAll(async () => {
  await Promise.all([...replicas.values()].map((replica) => replica.child.kill()));
  await connection?.quit();
  await world?.close();
  access.cleanup();
});

describe(`two drain-controller replicas (${DRAINS} drains, the holder killed at random)`, () => {
  it(
    'finishes every drain, replaces Node once per drain, and keeps one replica active',
    async () => {
      const startsBefore = simStarts();
      for (let drain = 1; drain <= DRAINS; drain += 1) {
        const record = await drainWhileKilling();
        expect({ drain, phase: record.phase, error: record.lastError }).toEqual({
          drain,
          phase: 'done',
          error: null,
        });
        await waitFor(async () => simStarts() === startsBefore + drain, {
          description: `Node replaced for drain ${drain}`,
          timeoutMs: 10_000,
        });
        expect((await statuses()).sort()).toEqual(['ready', 'standby']);
      }
      // Settled: no late replacement of a killed holder.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(simStarts()).toBe(startsBefore + DRAINS);
      const acts = await readLeaseActs(connection, leaseKey);
      expect(acts.filter((act) => act.act === 'replace').length).toBeGreaterThanOrEqual(DRAINS);
      expect(checkActs(acts)).toEqual([]);
      expect(totalKills).toBeGreaterThanOrEqual(DRAINS);
      process.stdout.write(
        `drain-controller lease: ${totalKills} kill -9 over ${DRAINS} drains (LEASE_SEED=${SEED})\n`,
      );
    },
    DRAINS * 100_000,
  );
});
