import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { TICKET_DELIVERY_QUEUE, type WinningTicket } from '@sandbox/protocol';
import { createWorker, type TypedWorker } from '@sandbox/queue';
import { startRedis, uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { pino } from 'pino';
import type { DeliveryResult, RedeemerClient } from '../delivery/redeemer-client';
import { openRedisContext, type RedisContext } from '../__fixtures__/redis-context';
import { makeTickets } from '../__fixtures__/tickets';
import { addDeliveryJobs } from './delivery-job';
import {
  createDeliverTicketHandler,
  deliveryBackoffStrategy,
  type DeliveryOutcome,
} from './deliver-ticket.job';

let redis: RedisFixture;
let ctx: RedisContext;
let worker: TypedWorker | undefined;
const make = makeTickets(31);
const logger = pino({ level: 'silent' });

/** A redeemer that answers from a script per ticket and records every delivery. */
function scriptedRedeemer(script: (ticket: WinningTicket, attempt: number) => DeliveryResult) {
  const deliveries = new Map<string, number>();
  const redeemer: RedeemerClient = {
    deliver(ticket) {
      const attempt = (deliveries.get(ticket.ticketHash) ?? 0) + 1;
      deliveries.set(ticket.ticketHash, attempt);
      return Promise.resolve(script(ticket, attempt));
    },
    outcomes: () => Promise.reject(new Error('not used')),
  };
  return { redeemer, deliveries };
}

function startWorker(redeemer: RedeemerClient, now: () => number = Date.now) {
  const events: string[] = [];
  const handler = createDeliverTicketHandler({
    store: ctx.workerStore,
    redeemer,
    logger,
    now,
    backoff: { baseMs: 20, capMs: 100 },
    observe: (event) => void events.push(event.outcome),
  });
  worker = createWorker(
    TICKET_DELIVERY_QUEUE,
    { 'deliver-ticket': handler },
    {
      connection: ctx.workerRedis,
      prefix: ctx.queuePrefix,
      logger,
      concurrency: 4,
      tuning: { settings: { backoffStrategy: deliveryBackoffStrategy(100) } },
    },
  );
  return events;
}

async function store(ticket: WinningTicket, deadlineAt = Date.now() + 60_000): Promise<void> {
  await ctx.store.createMany([{ ticket, receivedAt: Date.now(), windowStart: Date.now(), deadlineAt }]);
  await addDeliveryJobs(ctx.producer.queue, [ticket.ticketHash]);
}

const stateOf = async (ticket: WinningTicket) => (await ctx.store.get(ticket.ticketHash))?.state;

beforeAll(async () => {
  redis = await startRedis();
  ctx = await openRedisContext(redis.url, uniquePrefix('deliver'));
});
afterEach(async () => {
  await worker?.close();
  worker = undefined;
});
afterAll(async () => {
  await ctx.close();
  await redis.stop();
});

describe('deliver-ticket', () => {
  it('marks a ticket accepted once the redeemer acknowledges it, duplicates included', async () => {
    const [fresh, known] = [make(), make()];
    const { redeemer } = scriptedRedeemer((ticket) => ({
      kind: 'accepted',
      duplicate: ticket.ticketHash === known.ticketHash,
    }));
    const events = startWorker(redeemer);
    await store(fresh);
    await store(known);
    await waitFor(
      async () => (await stateOf(fresh)) === 'accepted' && (await stateOf(known)) === 'accepted',
      {
        description: 'both tickets accepted',
      },
    );
    expect(await ctx.store.get(fresh.ticketHash)).toMatchObject({ attempts: 1 });
    expect(events.sort()).toEqual(['accepted', 'duplicate']);
  });

  it('has the record acknowledged by the time its job completes', async () => {
    const tickets = [make(), make(), make()];
    const { redeemer } = scriptedRedeemer(() => ({ kind: 'accepted', duplicate: false }));
    startWorker(redeemer);
    const seen: (string | undefined)[] = [];
    worker?.worker.on('completed', (job) => {
      void ctx.store.get(job.id ?? '').then((record) => seen.push(record?.state));
    });
    for (const ticket of tickets) await store(ticket);
    await waitFor(() => seen.length === tickets.length, { description: 'every job to complete' });
    expect(seen).toEqual(['accepted', 'accepted', 'accepted']);
  });

  it('retries 5xx, timeouts and refused connections until the redeemer takes the ticket', async () => {
    const ticket = make();
    const errors = ['http_5xx', 'timeout', 'connection_refused'] as const;
    const { redeemer, deliveries } = scriptedRedeemer((_ticket, attempt) =>
      attempt <= errors.length
        ? { kind: 'retry', error: errors[attempt - 1] ?? 'network' }
        : { kind: 'accepted', duplicate: false },
    );
    startWorker(redeemer);
    await store(ticket);
    await waitFor(async () => (await stateOf(ticket)) === 'accepted', {
      description: 'acceptance after retries',
    });
    expect(deliveries.get(ticket.ticketHash)).toBe(4);
    expect(await ctx.store.get(ticket.ticketHash)).toMatchObject({
      attempts: 4,
      lastError: 'connection_refused',
    });
  });

  it('records a permanent refusal as rejected and fails the job without retrying', async () => {
    const ticket = make();
    const { redeemer, deliveries } = scriptedRedeemer(() => ({
      kind: 'rejected',
      reason: 'recipient_mismatch',
      status: 422,
    }));
    startWorker(redeemer);
    await store(ticket);
    await waitFor(async () => (await ctx.producer.queue.getJobState(ticket.ticketHash)) === 'failed', {
      description: 'the job to fail',
    });
    expect(await ctx.store.get(ticket.ticketHash)).toMatchObject({
      state: 'rejected',
      reason: expect.stringContaining('recipient_mismatch'),
    });
    expect(deliveries.get(ticket.ticketHash)).toBe(1);
  });

  it('gives up at the deadline while the redeemer stays unreachable', async () => {
    const ticket = make();
    const { redeemer, deliveries } = scriptedRedeemer(() => ({ kind: 'retry', error: 'connection_refused' }));
    startWorker(redeemer);
    await store(ticket, Date.now() + 400);
    await waitFor(async () => (await stateOf(ticket)) === 'expired_undelivered', {
      description: 'expiry while undelivered',
    });
    expect(deliveries.get(ticket.ticketHash)).toBeGreaterThanOrEqual(2);
    expect(await ctx.producer.queue.getJobState(ticket.ticketHash)).toBe('completed');
    expect(await ctx.producerRedis.sismember(ctx.store.keys.payer(ticket.sender), ticket.ticketHash)).toBe(0);
  });

  it('never delivers a ticket that was already acknowledged or finished', async () => {
    const [accepted, finished] = [make(), make()];
    const { redeemer, deliveries } = scriptedRedeemer(() => ({ kind: 'accepted', duplicate: false }));
    await store(accepted);
    await store(finished);
    await ctx.store.transition(accepted.ticketHash, 'accepted', ['received'], Date.now());
    await ctx.store.transition(finished.ticketHash, 'expired', ['received'], Date.now());
    startWorker(redeemer);
    const results: DeliveryOutcome[] = [];
    worker?.worker.on('completed', (_job, value: DeliveryOutcome) => void results.push(value));
    await waitFor(() => results.length === 2, { description: 'both jobs to complete' });
    expect(results).toEqual(['skipped', 'skipped']);
    expect(deliveries.size).toBe(0);
  });
});
