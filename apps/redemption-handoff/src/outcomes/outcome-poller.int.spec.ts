import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RedemptionOutcome, RedemptionOutcomesPage } from '@sandbox/protocol';
import { startRedis, uniquePrefix, type RedisFixture } from '@sandbox/testing';
import { pino } from 'pino';
import type { RedeemerClient } from '../delivery/redeemer-client';
import { openRedisContext, type RedisContext } from '../__fixtures__/redis-context';
import { makeTickets } from '../__fixtures__/tickets';
import { createOutcomePoller } from './outcome-poller';

let redis: RedisFixture;
let ctx: RedisContext;
const make = makeTickets(41);

/** A redeemer whose outcome log is an array; pages of `pageSize`. */
function logRedeemer(log: RedemptionOutcome[]): RedeemerClient & { polls: number[] } {
  const polls: number[] = [];
  return {
    polls,
    deliver: () => Promise.reject(new Error('not used')),
    outcomes(after, limit): Promise<RedemptionOutcomesPage> {
      polls.push(after);
      const outcomes = log.filter((entry) => entry.seq > after).slice(0, limit);
      return Promise.resolve({ outcomes, nextAfter: outcomes.at(-1)?.seq ?? after });
    },
  };
}

const outcome = (
  seq: number,
  ticketHash: string,
  kind: RedemptionOutcome['outcome'],
  extra = {},
): RedemptionOutcome => ({
  seq,
  ticketHash,
  outcome: kind,
  decidedAt: new Date(0).toISOString(),
  ...extra,
});

beforeAll(async () => {
  redis = await startRedis();
  ctx = await openRedisContext(redis.url, uniquePrefix('outcomes'));
});
afterAll(async () => {
  await ctx.close();
  await redis.stop();
});

describe('outcome poller', () => {
  it('records each outcome as the terminal state, pages through the log and keeps its cursor', async () => {
    const tickets = [make(), make(), make()];
    await ctx.store.createMany(
      tickets.map((ticket) => ({ ticket, receivedAt: 1, windowStart: 0, deadlineAt: 9e12 })),
    );
    await ctx.store.transition(tickets[0]?.ticketHash ?? '', 'accepted', ['received'], 2);
    const log = [
      outcome(1, tickets[0]?.ticketHash ?? '', 'redeemed', {
        paidWei: '1000',
        txHash: `0x${'12'.repeat(32)}`,
      }),
      outcome(2, tickets[1]?.ticketHash ?? '', 'rejected', { reason: 'sender is unlocked' }),
      outcome(3, `0x${'99'.repeat(32)}`, 'expired'),
      outcome(4, tickets[2]?.ticketHash ?? '', 'already_used'),
    ];
    const redeemer = logRedeemer(log);
    const applied: boolean[] = [];
    const poller = createOutcomePoller({
      store: ctx.workerStore,
      redeemer,
      logger: pino({ level: 'silent' }),
      now: () => 50,
      pageSize: 2,
      intervalMs: 10,
      onApplied: (_outcome, done) => void applied.push(done),
    });
    expect(await poller.pollOnce()).toBe(4);
    expect(redeemer.polls).toEqual([0, 2, 4]);
    expect(applied).toEqual([true, true, false, true]);
    expect(await ctx.store.get(tickets[0]?.ticketHash ?? '')).toMatchObject({
      state: 'redeemed',
      paidWei: '1000',
      terminalAt: 50,
    });
    expect(await ctx.store.get(tickets[1]?.ticketHash ?? '')).toMatchObject({
      state: 'rejected',
      reason: 'sender is unlocked',
    });
    expect(await ctx.store.get(tickets[2]?.ticketHash ?? '')).toMatchObject({ state: 'already_used' });
    expect(await ctx.store.readOutcomeCursor()).toBe(4);

    // Re-reading the log (a crash before the cursor was saved) changes nothing.
    await ctx.store.writeOutcomeCursor(0);
    expect(await poller.pollOnce()).toBe(4);
    expect(await ctx.store.get(tickets[0]?.ticketHash ?? '')).toMatchObject({
      state: 'redeemed',
      terminalAt: 50,
    });
  });

  it('keeps the first terminal state and notes a contradicting late outcome', async () => {
    const ticket = make();
    await ctx.store.createMany([{ ticket, receivedAt: 1, windowStart: 0, deadlineAt: 2 }]);
    await ctx.store.transition(ticket.ticketHash, 'expired_undelivered', ['received'], 3);
    await ctx.store.writeOutcomeCursor(0);
    const poller = createOutcomePoller({
      store: ctx.workerStore,
      redeemer: logRedeemer([outcome(1, ticket.ticketHash, 'redeemed')]),
      logger: pino({ level: 'silent' }),
      now: () => 60,
      pageSize: 10,
      intervalMs: 10,
    });
    await poller.pollOnce();
    expect(await ctx.store.get(ticket.ticketHash)).toMatchObject({
      state: 'expired_undelivered',
      lateOutcome: 'redeemed',
      terminalAt: 3,
    });
  });

  it('keeps polling through redeemer failures and stops on request', async () => {
    let calls = 0;
    const failing: RedeemerClient = {
      deliver: () => Promise.reject(new Error('not used')),
      outcomes: () => {
        calls += 1;
        return Promise.reject(new Error('connection refused'));
      },
    };
    const poller = createOutcomePoller({
      store: ctx.workerStore,
      redeemer: failing,
      logger: pino({ level: 'silent' }),
      now: Date.now,
      pageSize: 10,
      intervalMs: 1,
      sleep: () => new Promise((resolve) => setImmediate(resolve)),
    });
    poller.start();
    while (calls < 3) await new Promise((resolve) => setImmediate(resolve));
    await poller.stop();
    expect(calls).toBeGreaterThanOrEqual(3);
  });
});
