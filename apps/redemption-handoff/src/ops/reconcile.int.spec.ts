import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TICKET_DELIVERY_QUEUE } from '@sandbox/protocol';
import { createWorker } from '@sandbox/queue';
import { startRedis, uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { UnrecoverableError } from 'bullmq';
import { pino } from 'pino';
import { addDeliveryJobs } from '../jobs/delivery-job';
import { openRedisContext, type RedisContext } from '../__fixtures__/redis-context';
import { makeTickets } from '../__fixtures__/tickets';
import { reconcile } from './reconcile';

let redis: RedisFixture;
let ctx: RedisContext;
const make = makeTickets(51);

beforeAll(async () => {
  redis = await startRedis();
  ctx = await openRedisContext(redis.url, uniquePrefix('reconcile'));
});
afterAll(async () => {
  await ctx.close();
  await redis.stop();
});

describe('reconcile', () => {
  it('gives every owed ticket a live job and removes queued jobs of finished tickets', async () => {
    const [noJob, failedJob, fine, acknowledged, finished, old] = Array.from({ length: 6 }, () => make());
    const all = [noJob, failedJob, fine, acknowledged, finished, old].map(
      (ticket) => ticket as NonNullable<typeof ticket>,
    );
    await ctx.store.createMany(
      all.map((ticket) => ({ ticket, receivedAt: 1, windowStart: 0, deadlineAt: 9e12 })),
    );
    // A job that failed for good (e.g. stalled too often) while its ticket is still owed.
    await addDeliveryJobs(ctx.producer.queue, [all[1]?.ticketHash ?? '']);
    const failing = createWorker(
      TICKET_DELIVERY_QUEUE,
      { 'deliver-ticket': () => Promise.reject(new UnrecoverableError('stalled too often')) },
      { connection: ctx.workerRedis, prefix: ctx.queuePrefix, logger: pino({ level: 'silent' }) },
    );
    await waitFor(async () => (await ctx.producer.queue.getJobState(all[1]?.ticketHash ?? '')) === 'failed', {
      description: 'the job to fail',
    });
    await failing.close();
    await addDeliveryJobs(
      ctx.producer.queue,
      all.slice(2).map((ticket) => ticket.ticketHash),
    );
    await ctx.store.transition(all[3]?.ticketHash ?? '', 'accepted', ['received'], 2);
    await ctx.store.transition(all[4]?.ticketHash ?? '', 'redeemed', ['received'], 2);
    await ctx.store.transition(all[5]?.ticketHash ?? '', 'expired', ['received'], 2);

    const report = await reconcile({
      store: ctx.store,
      queries: ctx.queries,
      queue: ctx.producer.queue,
      logger: pino({ level: 'silent' }),
      now: () => 1_000,
      retentionMs: 500,
      batchSize: 2,
    });
    expect(report).toEqual({ jobsAdded: 2, jobsRemoved: 3, recordsDeleted: 2 });
    for (const ticket of all.slice(0, 3)) {
      expect(await ctx.producer.queue.getJobState(ticket.ticketHash)).toBe('waiting');
    }
    for (const ticket of all.slice(3)) {
      expect(await ctx.producer.queue.getJob(ticket.ticketHash)).toBeUndefined();
    }
    expect(await ctx.store.get(all[3]?.ticketHash ?? '')).toMatchObject({ state: 'accepted' });
    expect(await ctx.store.get(all[5]?.ticketHash ?? '')).toBeUndefined();

    const again = await reconcile({
      store: ctx.store,
      queries: ctx.queries,
      queue: ctx.producer.queue,
      logger: pino({ level: 'silent' }),
      now: () => 1_000,
      retentionMs: 500,
    });
    expect(again).toEqual({ jobsAdded: 0, jobsRemoved: 0, recordsDeleted: 0 });
  });
});
