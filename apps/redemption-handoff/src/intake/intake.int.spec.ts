import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  MAX_TICKETS_PER_BATCH,
  TicketListResponseSchema,
  WinningTicketIntakeResponseSchema,
} from '@sandbox/protocol';
import { accessPolicy, createHealth, createLogger, createMetrics } from '@sandbox/service-kit';
import { createSignatureVerifier } from '@sandbox/tickets';
import { createTestAccess, startRedis, uniquePrefix, waitFor, type RedisFixture } from '@sandbox/testing';
import { pino } from 'pino';
import request from 'supertest';
import { createApp, isIntakeRequest } from '../app';
import { fixedTicketWindows } from '../chain/ticket-window';
import { openRedisContext, type RedisContext } from '../__fixtures__/redis-context';
import { makeTickets } from '../__fixtures__/tickets';
import { createDurabilityMonitor } from '../ops/durability-monitor';
import { createHandoffMetrics } from '../ops/handoff-metrics';
import { createIntake } from './intake';
import { createTicketScreen } from './ticket-screen';

const TOKEN = 'intake-token-for-tests';
let redis: RedisFixture;
let ctx: RedisContext;
const lines: string[] = [];
const make = makeTickets(21);
const access = createTestAccess();
/** A GET of an operator view with the read token. */
const view = (app: ReturnType<typeof handoffApp>, path: string) =>
  request(app).get(path).set(access.headers('read'));

function handoffApp(context: RedisContext, isDurable: () => boolean = () => true) {
  const logger = createLogger({
    svc: 'handoff',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  const metrics = createMetrics({ svc: 'handoff', collectDefaults: false });
  const handoffMetrics = createHandoffMetrics({
    registry: metrics.registry,
    queries: context.queries,
    now: Date.now,
    isDurable,
  });
  const intake = createIntake({
    store: context.store,
    queue: context.producer.queue,
    durable: context.durable,
    screen: createTicketScreen({ verifier: createSignatureVerifier(), windows: fixedTicketWindows(60_000) }),
    isDurable,
    now: Date.now,
    onResults: handoffMetrics.intake,
  });
  const health = createHealth({ logger });
  health.markReady();
  return createApp({
    access: accessPolicy({
      tokens: access.tokens,
      serviceName: 'redemption-handoff',
      exempt: isIntakeRequest,
    }),
    logger,
    health,
    metrics,
    intake,
    intakeToken: TOKEN,
    queries: context.queries,
    now: Date.now,
  });
}

const post = (app: ReturnType<typeof handoffApp>, body: unknown, token = TOKEN) =>
  request(app)
    .post('/v1/winning-tickets')
    .set('Authorization', `Bearer ${token}`)
    .send(body as object);

beforeAll(async () => {
  redis = await startRedis();
  ctx = await openRedisContext(redis.url, uniquePrefix('intake'));
});
afterAll(async () => {
  await ctx.close();
  await redis.stop();
  access.cleanup();
});

describe('POST /v1/winning-tickets', () => {
  it('refuses a missing or wrong credential, and a body that is not a batch', async () => {
    const app = handoffApp(ctx);
    await post(app, { tickets: [make()] }, 'wrong-token').expect(401);
    await request(app)
      .post('/v1/winning-tickets')
      .send({ tickets: [make()] })
      .expect(401);
    await post(app, { tickets: [] }).expect(400);
    await post(app, { tickets: Array.from({ length: MAX_TICKETS_PER_BATCH + 1 }, () => ({})) }).expect(400);
  });

  it('stores each valid ticket with a job holding only its hash, and answers per ticket in order', async () => {
    const app = handoffApp(ctx);
    const [a, b] = [make(), make()];
    const response = await post(app, { tickets: [a, { ...b, senderNonce: '4242' }, b, a] }).expect(200);
    const body = WinningTicketIntakeResponseSchema.parse(response.body);
    expect(body.results.map((result) => result.status)).toEqual([
      'accepted',
      'rejected',
      'accepted',
      'duplicate',
    ]);
    expect(body.results[1]).toMatchObject({ reason: 'hash_mismatch' });
    for (const ticket of [a, b]) {
      expect((await ctx.store.get(ticket.ticketHash))?.state).toBe('received');
      const job = await ctx.producer.queue.getJob(ticket.ticketHash);
      expect(job?.data).toEqual({ ticketHash: ticket.ticketHash });
      expect(job?.name).toBe('deliver-ticket');
    }
  });

  it('is idempotent: a retried batch answers duplicate and restores a missing job', async () => {
    const app = handoffApp(ctx);
    const ticket = make();
    await post(app, { tickets: [ticket] }).expect(200);
    // As if the first try had crashed between the record and its job.
    await ctx.producer.queue.remove(ticket.ticketHash);
    const again = await post(app, { tickets: [ticket] }).expect(200);
    expect(again.body.results[0]).toMatchObject({ status: 'duplicate' });
    expect(await ctx.producer.queue.getJob(ticket.ticketHash)).toBeDefined();
  });

  it('answers 503 and stores nothing while Redis cannot confirm durable writes', async () => {
    const ticket = make();
    await post(
      handoffApp(ctx, () => false),
      { tickets: [ticket] },
    ).expect(503);
    expect(await ctx.store.get(ticket.ticketHash)).toBeUndefined();
  });

  it('answers 503 while Redis is down, and stores the batch once it is back', async () => {
    const app = handoffApp(ctx);
    const ticket = make();
    await redis.kill9();
    const refused = await post(app, { tickets: [ticket] });
    expect(refused.status).toBe(503);
    await redis.restart();
    await waitFor(async () => (await post(app, { tickets: [ticket] })).status === 200, {
      description: 'intake to store the batch once Redis is back',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    expect(await ctx.store.get(ticket.ticketHash)).toBeDefined();
  });
});

describe('durability monitor', () => {
  it('reports a Redis that cannot fsync every write (no WAITAOF, appendfsync everysec) as not durable', async () => {
    const lax = await startRedis({ appendfsync: 'everysec' });
    const context = await openRedisContext(lax.url, uniquePrefix('lax'));
    try {
      const monitor = createDurabilityMonitor({
        redis: context.producerRedis,
        logger: pino({ level: 'silent' }),
        intervalMs: 1_000,
      });
      const supportsWaitaof = await context.producerRedis
        .call('COMMAND', 'INFO', 'WAITAOF')
        .then((reply) => Array.isArray(reply) && reply[0] !== null);
      expect(await monitor.check()).toBe(supportsWaitaof);
      expect(
        await createDurabilityMonitor({
          redis: ctx.producerRedis,
          logger: pino({ level: 'silent' }),
          intervalMs: 1_000,
        }).check(),
      ).toBe(true);
    } finally {
      await context.close();
      await lax.stop();
    }
  });
});

describe('operator views', () => {
  it('list tickets without secrets and never log them', async () => {
    const app = handoffApp(ctx);
    const canary = make();
    await post(app, { tickets: [canary, { ...canary, winProb: '1' }] }).expect(200);
    const list = await view(app, '/v1/winning-tickets?state=received&limit=500').expect(200);
    const parsed = TicketListResponseSchema.parse(list.body);
    expect(parsed.tickets.some((ticket) => ticket.ticketHash === canary.ticketHash)).toBe(true);
    const liabilities = await view(app, '/v1/liabilities').expect(200);
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('handoff_intake_tickets_total{status="rejected",reason="hash_mismatch"');
    const jobs = await ctx.producerRedis.hgetall(ctx.producer.queue.toKey(canary.ticketHash));
    const everything = [
      JSON.stringify(list.body),
      JSON.stringify(liabilities.body),
      metrics.text,
      lines.join(''),
      JSON.stringify(jobs),
    ].join('\n');
    for (const secret of [canary.sig.slice(2), canary.recipientRand.slice(2), TOKEN, access.tokens.read]) {
      expect(everything).not.toContain(secret);
    }
    await view(app, '/v1/winning-tickets?state=nope').expect(400);
  });
});

describe('access to the operator views', () => {
  it.each(['/v1/winning-tickets', '/v1/liabilities'])(
    'GET %s: 401 without, with a wrong or with the intake token; 200 with the read or the admin token',
    async (path) => {
      const app = handoffApp(ctx);
      for (const headers of [{}, access.headers('wrong'), { authorization: `Bearer ${TOKEN}` }]) {
        const refused = await request(app).get(path).set(headers).expect(401);
        expect(refused.body.error.code).toBe('unauthenticated');
      }
      await request(app).get(path).set(access.headers('read')).expect(200);
      await request(app).get(path).set(access.headers('admin')).expect(200);
    },
  );

  it('keeps the intake on its own credential: the management tokens do not open it', async () => {
    const app = handoffApp(ctx);
    for (const role of ['read', 'admin'] as const) {
      await request(app)
        .post('/v1/winning-tickets')
        .set(access.headers(role))
        .send({ tickets: [make()] })
        .expect(401);
    }
    await post(app, { tickets: [make()] }).expect(200);
  });

  it('refuses a foreign Host on the views, and the read token on a write', async () => {
    const app = handoffApp(ctx);
    const misdirected = await request(app)
      .get('/v1/liabilities')
      .set({ ...access.headers('admin'), host: 'rebound.example' })
      .expect(421);
    expect(misdirected.body.error.code).toBe('misdirected_request');
    await request(app).delete('/v1/liabilities').set(access.headers('read')).expect(403);
    await request(app).get('/readyz').set({ host: 'rebound.example' }).expect(200);
  });
});
