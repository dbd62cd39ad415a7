import { describe, expect, it } from '@jest/globals';
import { createHealth, createLogger, createMetrics } from '@sandbox/service-kit';
import { createSignatureVerifier, hexToBytes, MAX_UINT256 } from '@sandbox/tickets';
import { buildWinningTicket } from '@sandbox/tickets/testing';
import request from 'supertest';
import { createApp } from './app';
import type { Faults } from './faults';
import { createRedeemLoop } from './ledger/redeem-loop';
import { SimChain } from './ledger/sim-chain';
import { rememberChecks } from './ledger/verdict-memo';
import { SimStore } from './store/sim-store';

const TOKEN = 'redeemer-sim-token';
const RECIPIENT = `0x${'1d'.repeat(20)}`;
const ticket = (nonce: number, recipient = RECIPIENT) =>
  buildWinningTicket({
    senderKey: hexToBytes(`0x${'00'.repeat(31)}09`),
    recipient,
    faceValue: 5n,
    winProb: MAX_UINT256,
    senderNonce: nonce,
    recipientRand: BigInt(nonce),
    creationRound: BigInt(Math.floor(Date.now() / 12_000 / 5_760)),
    creationRoundBlockHash: `0x${'ab'.repeat(32)}`,
    paramsExpirationBlock: 1n,
  });

function sim(
  faults: Partial<Faults> = {},
  random = () => 0.5,
  logger = createLogger({ svc: 'redeemer-sim', level: 'silent' }),
) {
  const store = new SimStore(':memory:');
  const chain = new SimChain(store, { blockMs: 12_000, roundBlocks: 5_760, genesisMs: 0, now: Date.now });
  const check = rememberChecks(createSignatureVerifier(), 100);
  const loop = createRedeemLoop({
    store,
    chain,
    check,
    logger,
    now: Date.now,
    intervalMs: 1_000,
    validityRounds: 2,
    waitForParamsExpiry: true,
    defaultFunds: { deposit: 100n, reserve: 0n, withdrawRound: undefined },
  });
  const current: Faults = { latencyMs: 0, failureRate: 0, lostAckRate: 0, outage: 'none', ...faults };
  const health = createHealth();
  health.markReady();
  const app = createApp({
    logger,
    health,
    metrics: createMetrics({ svc: 'redeemer-sim', collectDefaults: false }),
    store,
    chain,
    faults: { current, random },
    check,
    token: TOKEN,
    now: Date.now,
    recipient: RECIPIENT,
    redeemNow: loop.tick,
  });
  return { app, store };
}

const deliver = (app: ReturnType<typeof sim>['app'], body: unknown, key?: string) =>
  request(app)
    .post('/v1/tickets')
    .set('Authorization', `Bearer ${TOKEN}`)
    .set('Idempotency-Key', key ?? (body as { ticket: { ticketHash: string } }).ticket.ticketHash)
    .send(body as object);

describe('redeemer-sim API', () => {
  it('takes a ticket once (201), then answers duplicate (200), and 409 for other contents', async () => {
    const { app, store } = sim();
    const one = ticket(1);
    expect((await deliver(app, { ticket: one }).expect(201)).body).toEqual({
      ticketHash: one.ticketHash,
      status: 'accepted',
    });
    expect((await deliver(app, { ticket: one }).expect(200)).body).toEqual({
      ticketHash: one.ticketHash,
      status: 'duplicate',
    });
    await deliver(app, { ticket: { ...one, paramsExpirationBlock: '9' } }).expect(409);
    expect(store.ticket(one.ticketHash)?.deliveries).toBe(2);
  });

  it('refuses bad credentials, bodies and keys, and rejects unredeemable tickets with 422', async () => {
    const { app } = sim();
    const one = ticket(2);
    await request(app)
      .post('/v1/tickets')
      .set('Authorization', 'Bearer nope')
      .send({ ticket: one })
      .expect(401);
    await deliver(app, { ticket: one }, `0x${'00'.repeat(32)}`).expect(400);
    await deliver(app, { ticket: { ...one, sig: '0x00' } }).expect(400);
    const foreign = ticket(3, `0x${'0c'.repeat(20)}`);
    expect((await deliver(app, { ticket: foreign }).expect(422)).body).toMatchObject({
      status: 'rejected',
      reason: 'recipient_mismatch',
    });
    expect((await deliver(app, { ticket: { ...one, faceValue: '6' } }).expect(422)).body).toMatchObject({
      reason: 'hash_mismatch',
    });
  });

  it('simulates failures, lost acknowledgements and outages', async () => {
    const failing = sim({ failureRate: 1 });
    const one = ticket(4);
    await deliver(failing.app, { ticket: one }).expect(503);
    expect(failing.store.ticket(one.ticketHash)).toBeUndefined();
    const lossy = sim({ lostAckRate: 1 });
    await deliver(lossy.app, { ticket: one }).expect(503);
    expect(lossy.store.ticket(one.ticketHash)).toBeDefined();
    const down = sim({ outage: 'unavailable' });
    await deliver(down.app, { ticket: one }).expect(503);
    await request(down.app).put('/sim/faults').send({ outage: 'none' }).expect(200);
    await deliver(down.app, { ticket: one }).expect(201);
  });

  it('decides tickets on its chain and serves the outcome log and the ledger without secrets', async () => {
    const { app } = sim();
    const [one, two] = [ticket(5), ticket(6)];
    await deliver(app, { ticket: one }).expect(201);
    await deliver(app, { ticket: two }).expect(201);
    await request(app).post('/sim/used-tickets').send({ ticketHash: two.ticketHash }).expect(204);
    expect((await request(app).post('/sim/redeem').expect(200)).body).toEqual({ decided: 2 });
    const page = await request(app)
      .get('/v1/outcomes?after=0&limit=10')
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    expect(page.body.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual([
      'redeemed',
      'already_used',
    ]);
    expect(page.body.nextAfter).toBe(2);
    const ledger = await request(app).get('/sim/ledger').expect(200);
    expect(ledger.body.tickets.map((t: { submissions: number }) => t.submissions)).toEqual([1, 0]);
    expect(JSON.stringify(ledger.body)).not.toContain(one.sig.slice(2));
    expect(JSON.stringify(ledger.body)).not.toContain(one.recipientRand.slice(2));
    await request(app).get('/v1/outcomes').expect(401);
  });

  it('logs the polled outcome reads at debug and other requests at info', async () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const { app } = sim({}, () => 0.5, createLogger({ svc: 'redeemer-sim', level: 'info', destination }));
    const auth = `Bearer ${TOKEN}`;
    await request(app).get('/v1/outcomes?after=0&limit=10').set('Authorization', auth).expect(200);
    expect(lines).toEqual([]);
    await deliver(app, { ticket: ticket(7) }).expect(201);
    expect(lines.map((line) => JSON.parse(line) as { msg: string; req: { url: string } })).toMatchObject([
      { msg: 'request completed', req: { url: '/v1/tickets' } },
    ]);
  });
});
