import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisConnection } from '@sandbox/queue';
import { createMemoryLogger, startRedis, uniquePrefix, waitFor } from '@sandbox/testing';
import type { RedisFixture } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { fencedExec, readFenceLog } from './fenced-exec';
import type { LeaseTimings } from './lease-config';
import { createLeaseElector } from './lease-elector';
import type { LeaseElector } from './lease-elector';
import { NotLeaseHolderError, StaleLeaseError } from './lease-errors';
import { checkpointKeys, fencedCheckpoint, guardMethods, readLeaseActs } from './lease-guard';

const TIMINGS: LeaseTimings = { ttlMs: 600, renewDeadlineMs: 400, retryPeriodMs: 50 };

let redis: RedisFixture;
let admin: Redis;
const opened: Redis[] = [];
const electors: LeaseElector[] = [];

interface Contender {
  elector: LeaseElector;
  connection: Redis;
  events: { kind: 'active' | 'lost'; at: number; reason?: string }[];
}

function contender(key: string, holderId: string): Contender {
  const connection = createRedisConnection(redis.url, 'producer');
  opened.push(connection);
  const { logger } = createMemoryLogger();
  const elector = createLeaseElector({ redis: connection, key, holderId, timings: TIMINGS, logger });
  electors.push(elector);
  const events: Contender['events'] = [];
  elector.run({
    onActive: () => events.push({ kind: 'active', at: Date.now() }),
    onLost: (reason) => events.push({ kind: 'lost', at: Date.now(), reason }),
  });
  return { elector, connection, events };
}

const activeOf = (c: Contender) =>
  waitFor(() => c.elector.state === 'active', { description: `${c.elector.holderId} active` });

beforeAll(async () => {
  redis = await startRedis();
  admin = createRedisConnection(redis.url, 'worker');
});
afterEach(async () => {
  await Promise.all(electors.splice(0).map((elector) => elector.release().catch(() => undefined)));
  opened.splice(0).forEach((connection) => connection.disconnect());
  await admin.flushall();
});
afterAll(async () => {
  await admin.quit();
  await redis.stop();
});

describe('lease elector on a real Redis', () => {
  it('grants one holder a token; the other stays standby while renewals keep the lease beyond its TTL', async () => {
    const key = uniquePrefix('lease');
    const a = contender(key, 'a');
    await activeOf(a);
    const b = contender(key, 'b');
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.ttlMs * 3));
    expect(a.elector.holding()?.token).toBe(1);
    expect(b.elector.state).toBe('standby');
    expect(await admin.get(key)).toBe('1 a');
    expect(await admin.pttl(key)).toBeGreaterThan(0);
  });

  it('a holder cut off from Redis stops before its TTL ends; the other takes over only after', async () => {
    const key = uniquePrefix('lease');
    const a = contender(key, 'a');
    await activeOf(a);
    const b = contender(key, 'b');
    a.connection.disconnect();
    await activeOf(b);
    const lost = a.events.find((event) => event.kind === 'lost') ?? { at: NaN };
    const taken = b.events.find((event) => event.kind === 'active') ?? { at: NaN };
    expect(a.events.at(-1)?.reason).toBe('renew deadline passed');
    // The old holder gave up at least (TTL - renew deadline) minus one retry period before the takeover.
    expect(taken.at - lost.at).toBeGreaterThanOrEqual(
      TIMINGS.ttlMs - TIMINGS.renewDeadlineMs - TIMINGS.retryPeriodMs,
    );
    expect(b.elector.holding()?.token).toBe(2);
    expect(a.elector.state).toBe('ended');
  });

  it('a stalled event loop counts: past the renew deadline the holding is gone before any timer fires', async () => {
    const a = contender(uniquePrefix('lease'), 'a');
    await activeOf(a);
    const until = performance.now() + TIMINGS.renewDeadlineMs + 20;
    while (performance.now() < until) {
      // Busy: no timer or reply can run, as in a long GC pause or a SIGSTOP.
    }
    expect(a.elector.holding()).toBeUndefined();
    await expect(fencedExec(a.elector, [['SET', 'x', '1']])).rejects.toBeInstanceOf(NotLeaseHolderError);
  });

  it('Redis refuses a fenced write of a stale token and keeps the writer log increasing', async () => {
    const key = uniquePrefix('lease');
    const target = `${key}:target`;
    const a = contender(key, 'a');
    await activeOf(a);
    await fencedExec(a.elector, [['RPUSH', target, 'a1']]);
    const before = a.elector.holding();
    // The lease expires under a's feet (as after a pause longer than its TTL) and b takes it.
    await admin.del(key);
    const b = contender(key, 'b');
    await activeOf(b);
    // a paused between its local deadline check and the write: only Redis can still refuse it.
    const paused = { keys: a.elector.keys, redis: a.elector.redis, holding: () => before } as LeaseElector;
    const refused = fencedExec(paused, [['RPUSH', target, 'a2']]);
    await expect(refused).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(refused).rejects.toMatchObject({ token: 1, currentToken: 2 });
    expect(
      await fencedExec(b.elector, [
        ['RPUSH', target, 'b1'],
        ['LLEN', target],
      ]),
    ).toEqual([2, 2]);
    expect(await admin.lrange(target, 0, -1)).toEqual(['a1', 'b1']);
    const log = await readFenceLog(b.elector);
    expect(log.map((entry) => [entry.token, entry.holderId])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it('a dead holder (no release) is taken over once its TTL has passed', async () => {
    const key = uniquePrefix('lease');
    const a = contender(key, 'a');
    await activeOf(a);
    const b = contender(key, 'b');
    a.elector.release = async () => undefined;
    a.connection.disconnect();
    const diedAt = Date.now();
    await activeOf(b);
    expect(Date.now() - diedAt).toBeLessThan(TIMINGS.ttlMs + 4 * TIMINGS.retryPeriodMs);
  });

  it('release frees the lease at once for the standby', async () => {
    const key = uniquePrefix('lease');
    const a = contender(key, 'a');
    await activeOf(a);
    const b = contender(key, 'b');
    await a.elector.release();
    expect(await admin.get(key)).toBeNull();
    await activeOf(b);
    expect(b.elector.holding()?.token).toBe(2);
    expect(a.events.map((event) => event.kind)).toEqual(['active']);
  });
});

describe('checkpoints and guards', () => {
  it('records acts with the token, refuses them from a standby, and guards named methods', async () => {
    const key = uniquePrefix('lease');
    const a = contender(key, 'a');
    await activeOf(a);
    const b = contender(key, 'b');
    await fencedCheckpoint(a.elector, 'pass one');
    await expect(fencedCheckpoint(b.elector, 'pass')).rejects.toBeInstanceOf(NotLeaseHolderError);
    const actions: string[] = [];
    const target = { start: (what: string) => actions.push(what), read: () => 'ok' };
    const onStandby = guardMethods(target, b.elector, ['start']);
    expect(() => onStandby.start('x')).toThrow(NotLeaseHolderError);
    expect(onStandby.read()).toBe('ok');
    guardMethods(target, a.elector, ['start']).start('y');
    expect(actions).toEqual(['y']);
    await a.elector.release();
    await activeOf(b);
    await fencedCheckpoint(b.elector, 'pass two');
    expect((await readLeaseActs(admin, key)).map(({ token, act }) => [token, act])).toEqual([
      [1, 'pass one'],
      [2, 'pass two'],
    ]);
    expect(await admin.hgetall(checkpointKeys(b.elector).active)).toMatchObject({ token: '2', holder: 'b' });
  });
});
