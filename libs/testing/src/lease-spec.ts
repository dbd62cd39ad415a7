import { Redis } from 'ioredis';
import { createTestAccess, type TestAccess } from './access-tokens';
import { leaseReportFile, leaseSpecRounds } from './config';
import {
  checkActs,
  reportLeaseRounds,
  runLeaseRounds,
  TEST_LEASE,
  type LeaseRoundsResult,
  type Replica,
} from './lease-replicas';
import { startRedis, type RedisFixture } from './redis-server';

/** What a two-replica lease spec runs against: one Redis, a connection reading the lease, access tokens. */
export interface LeaseSpecWorld {
  redis: RedisFixture;
  /** Reads the lease and its acts (a worker-style connection: it waits out a slow Redis). */
  connection: Redis;
  access: TestAccess;
  /** The replicas the rounds ended with (killed when the world closes). */
  replicas: Replica[];
}

/** Starts a lease spec's Redis, connection and access tokens. */
export async function openLeaseWorld(): Promise<LeaseSpecWorld> {
  const redis = await startRedis();
  // Set up like @sandbox/queue's worker connections; that library's own specs use this one, so not theirs.
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  return { redis, connection, access: createTestAccess(), replicas: [] };
}

/**
 * Kills the replicas, then runs the spec's own closers (in order, while Redis still runs), then closes
 * the connection, Redis and the tokens.
 */
export async function closeLeaseWorld(
  world: LeaseSpecWorld | undefined,
  ...closers: (() => Promise<unknown>)[]
): Promise<void> {
  if (world === undefined) return;
  await Promise.all(world.replicas.map((replica) => replica.child.kill()));
  for (const close of closers) await close();
  await world.connection.quit();
  await world.redis.stop();
  world.access.cleanup();
}

/**
 * {@link runLeaseRounds} as every service's lease spec runs it: {@link leaseSpecRounds} rounds, every fifth a
 * pause past {@link TEST_LEASE}'s TTL. The replicas it ends with are kept in the world; `problems` lists
 * what the fence must never show: an act of an older token after a newer one, or a resumed holder that
 * did not give up (exit 1).
 */
export async function runLeaseSpecRounds(
  world: LeaseSpecWorld,
  options: { leaseKey: string; start(holderId: string): Promise<Replica> },
): Promise<LeaseRoundsResult & { problems: string[] }> {
  const result = await runLeaseRounds({
    redis: world.connection,
    ...options,
    rounds: leaseSpecRounds(),
    pauseEvery: 5,
    ttlMs: TEST_LEASE.ttlMs,
  });
  world.replicas = result.replicas;
  const stayed = result.resumedExits.filter((code) => code !== 1);
  const problems = [
    ...checkActs(result.acts),
    ...stayed.map((code) => `a resumed holder exited ${String(code)}, not 1 (lease lost)`),
  ];
  return { ...result, problems };
}

/** The end of a passing run: reports it (for the lease bench too) and stops the replicas gracefully. */
export async function finishLeaseSpec(
  world: LeaseSpecWorld,
  service: string,
  result: LeaseRoundsResult,
): Promise<void> {
  await reportLeaseRounds(service, result, leaseReportFile());
  await Promise.all(world.replicas.map((replica) => replica.child.stop()));
  world.replicas = [];
}
