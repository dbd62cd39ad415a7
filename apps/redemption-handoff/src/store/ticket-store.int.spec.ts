import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, uniquePrefix, type RedisFixture } from '@sandbox/testing';
import { openRedisContext, type RedisContext } from '../__fixtures__/redis-context';
import { makeTickets } from '../__fixtures__/tickets';
import { OPEN_STATES } from './ticket-store';

let redis: RedisFixture;
let ctx: RedisContext;
const make = makeTickets(11);
const entry = (ticket = make(), receivedAt = 1_000) => ({
  ticket,
  receivedAt,
  windowStart: 500,
  deadlineAt: 9_000,
});

beforeAll(async () => {
  redis = await startRedis();
  ctx = await openRedisContext(redis.url, uniquePrefix('store'));
});
afterAll(async () => {
  await ctx.close();
  await redis.stop();
});

describe('ticket store', () => {
  it('creates a record once and reports the existing state afterwards', async () => {
    const first = entry();
    expect(await ctx.store.createMany([first])).toEqual(['created']);
    expect(await ctx.store.createMany([first, entry()])).toEqual(['received', 'created']);
    const record = await ctx.store.get(first.ticket.ticketHash);
    expect(record).toMatchObject({
      ticket: first.ticket,
      state: 'received',
      receivedAt: 1_000,
      deadlineAt: 9_000,
      attempts: 0,
    });
  });

  it('begins a delivery in one script: the record before the attempt, then delivering', async () => {
    const { ticket } = entry();
    await ctx.store.createMany([entry(ticket)]);
    const hash = ticket.ticketHash;
    const owed = ['received', 'delivering'] as const;
    const begun = await ctx.store.beginDelivery(hash, owed, 2_000);
    expect(begun).toMatchObject({ result: 'ok', record: { ticket, state: 'received', attempts: 0 } });
    expect(await ctx.store.get(hash)).toMatchObject({
      state: 'delivering',
      attempts: 1,
      lastAttemptAt: 2_000,
    });
    expect(await ctx.producerRedis.zscore(ctx.store.keys.state('delivering'), hash)).toBe('1000');
    expect(await ctx.producerRedis.zscore(ctx.store.keys.state('received'), hash)).toBeNull();
    // At the deadline: reported expired, record untouched.
    expect(await ctx.store.beginDelivery(hash, owed, 9_000)).toMatchObject({
      result: 'expired',
      record: { state: 'delivering', attempts: 1 },
    });
    expect(await ctx.store.get(hash)).toMatchObject({ attempts: 1, lastAttemptAt: 2_000 });
    await ctx.store.transition(hash, 'accepted', owed, 3_000);
    expect(await ctx.store.beginDelivery(hash, owed, 3_000)).toEqual({
      result: 'refused',
      state: 'accepted',
    });
    expect(await ctx.store.beginDelivery(`0x${'ab'.repeat(32)}`, owed, 3_000)).toEqual({ result: 'missing' });
  });

  it('moves only from allowed states, counts attempts and keeps indexes in step', async () => {
    const { ticket } = entry();
    await ctx.store.createMany([entry(ticket)]);
    const hash = ticket.ticketHash;
    expect(await ctx.store.transition(hash, 'accepted', ['delivering'], 2_000)).toEqual({
      result: 'refused',
      previous: 'received',
    });
    expect(await ctx.store.transition(hash, 'delivering', ['received', 'delivering'], 2_000)).toEqual({
      result: 'ok',
      previous: 'received',
    });
    await ctx.store.transition(hash, 'delivering', ['received', 'delivering'], 2_500);
    expect(await ctx.store.get(hash)).toMatchObject({
      state: 'delivering',
      attempts: 2,
      lastAttemptAt: 2_500,
    });
    const { keys } = ctx.store;
    expect(await ctx.producerRedis.zscore(keys.state('delivering'), hash)).toBe('1000');
    expect(await ctx.producerRedis.zscore(keys.state('received'), hash)).toBeNull();
    await ctx.store.transition(hash, 'accepted', OPEN_STATES, 3_000, { acc: '3000' });
    expect(await ctx.producerRedis.zscore(keys.due, hash)).toBeNull();
    expect(await ctx.producerRedis.sismember(keys.payer(ticket.sender), hash)).toBe(1);
    await ctx.store.transition(hash, 'redeemed', OPEN_STATES, 4_000, { paid: '1000' });
    expect(await ctx.producerRedis.sismember(keys.payer(ticket.sender), hash)).toBe(0);
    expect(await ctx.store.get(hash)).toMatchObject({
      state: 'redeemed',
      acceptedAt: 3_000,
      terminalAt: 4_000,
      paidWei: '1000',
    });
    expect(await ctx.store.transition(`0x${'ee'.repeat(32)}`, 'redeemed', OPEN_STATES, 1)).toEqual({
      result: 'missing',
      previous: undefined,
    });
  });

  it('lets exactly one of many racing terminal transitions win', async () => {
    const { ticket } = entry();
    await ctx.store.createMany([entry(ticket)]);
    const targets = ['redeemed', 'expired', 'already_used', 'rejected', 'expired_undelivered'] as const;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        ctx.store.transition(ticket.ticketHash, targets[i % 5] ?? 'redeemed', OPEN_STATES, 5_000 + i),
      ),
    );
    expect(results.filter((result) => result.result === 'ok')).toHaveLength(1);
    const terminal = await ctx.producerRedis.zscore(ctx.store.keys.terminal, ticket.ticketHash);
    expect(terminal).not.toBeNull();
  });

  it('annotates only existing records', async () => {
    const missing = `0x${'ab'.repeat(32)}`;
    await ctx.store.annotate(missing, { err: 'timeout' });
    expect(await ctx.producerRedis.exists(ctx.store.keys.record(missing))).toBe(0);
    const { ticket } = entry();
    await ctx.store.createMany([entry(ticket)]);
    await ctx.store.annotate(ticket.ticketHash, { err: 'timeout' });
    expect(await ctx.store.get(ticket.ticketHash)).toMatchObject({ lastError: 'timeout' });
  });

  it('keeps the outcome cursor and deletes old terminal records only', async () => {
    expect(await ctx.store.readOutcomeCursor()).toBe(0);
    await ctx.store.writeOutcomeCursor(42);
    expect(await ctx.store.readOutcomeCursor()).toBe(42);
    const [old, open] = [entry(), entry()];
    await ctx.store.createMany([old, open]);
    await ctx.store.transition(old.ticket.ticketHash, 'expired', OPEN_STATES, 10);
    const deleted = await ctx.store.deleteTerminalBefore(100, 1_000);
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await ctx.store.get(old.ticket.ticketHash)).toBeUndefined();
    expect(await ctx.store.get(open.ticket.ticketHash)).toBeDefined();
  });
});

describe('ticket queries', () => {
  it('sums pending face value per payer and reports stats', async () => {
    const fresh = await openRedisContext(redis.url, uniquePrefix('queries'));
    try {
      const tickets = [
        make({ payer: 0, faceValue: 10n ** 30n }),
        make({ payer: 0, faceValue: 5n }),
        make({ payer: 1, faceValue: 7n }),
      ];
      await fresh.store.createMany(
        tickets.map((ticket, i) => ({
          ticket,
          receivedAt: 1_000 + i,
          windowStart: 0,
          deadlineAt: 10_000 + i,
        })),
      );
      await fresh.store.transition(tickets[1]?.ticketHash ?? '', 'accepted', OPEN_STATES, 2_000);
      const liabilities = await fresh.queries.liabilities();
      expect(liabilities).toEqual([
        {
          sender: tickets[0]?.sender,
          pendingFaceValue: (10n ** 30n + 5n).toString(),
          tickets: 2,
          undelivered: 1,
        },
        { sender: tickets[2]?.sender, pendingFaceValue: '7', tickets: 1, undelivered: 1 },
      ]);
      const stats = await fresh.queries.stats();
      expect(stats.counts).toMatchObject({ received: 2, accepted: 1, redeemed: 0 });
      expect(stats.oldestUndeliveredAt).toBe(1_000);
      expect(stats.undeliveredFaceValue).toBe(10n ** 30n + 7n);
      expect(stats.nearestDeadline).toEqual({ windowStart: 0, deadlineAt: 10_000 });
      const page = await fresh.queries.list(undefined, 2, 0);
      expect(page.records.map((record) => record.receivedAt)).toEqual([1_002, 1_001]);
      expect(page.nextCursor).toBe('2');
      expect((await fresh.queries.list('accepted', 10, 0)).records).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});
