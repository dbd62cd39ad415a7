import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  GenerateLivePaymentResponseSchema,
  NodeErrorMessage,
  PaymentChallengeSchema,
} from '@sandbox/protocol';
import type { Paid, PaidFixture } from '../testing/paid-fixture';
import { paidHeaders, reservePaid, sign, startPaidFixture } from '../testing/paid-fixture';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';
import { call, register } from '../testing/sim-fixture';

let app: RunnerApp;
let paid: PaidFixture;

beforeAll(async () => {
  app = await startRunnerApp();
});
afterAll(async () => {
  await app.close();
});
beforeEach(async () => {
  paid = await startPaidFixture(app.url, app.grant);
});
afterEach(async () => {
  await paid.fx.stop();
});

describe('top-ups, refresh and the signer statuses', () => {
  it('skips a covered cycle with 482, refreshes params and accepts a top-up at payment_url', async () => {
    const { fx, payer } = paid;
    const { challenge, paid: first } = await reservePaid(paid);
    expect((await sign(fx, challenge, 'live', first.state)).status).toBe(482);
    fx.clock.advance(995_000);
    const refreshed = await call(`${fx.url}/refresh-payment`, {
      method: 'POST',
      body: JSON.stringify({ sender: payer, manifest_id: challenge.manifest_id }),
    });
    expect(refreshed.status).toBe(200);
    const topUp = GenerateLivePaymentResponseSchema.parse(
      (await sign(fx, PaymentChallengeSchema.parse(refreshed.json()), 'live', first.state)).json(),
    );
    const reply = await call(challenge.payment_url, { method: 'POST', headers: paidHeaders(payer, topUp) });
    expect([reply.status, PaymentChallengeSchema.safeParse(reply.json()).success]).toEqual([200, true]);
    fx.clock.advance(10_000);
    expect(fx.sim.context.runners.counts().sessions).toBe(1);
  });

  it('asks the client to refresh (480) once the ticket params expire', async () => {
    const { challenge, paid: first } = await reservePaid(paid);
    paid.fx.clock.advance(40 * 12_000);
    const reply = await sign(paid.fx, challenge, 'live', first.state);
    expect([reply.status, reply.headers.get('livepeer-orchestrator-url')]).toEqual([480, paid.fx.url]);
  });

  it.each<[string, (first: Paid) => Record<string, string>]>([
    ['a replayed payment', (first) => paidHeaders(paid.payer, first)],
    ['a garbled payment', (first) => ({ ...paidHeaders(paid.payer, first), 'Livepeer-Payment': 'AAAA' })],
  ])('refuses %s with 403', async (_name, headers) => {
    const { challenge, paid: first } = await reservePaid(paid);
    const reply = await call(challenge.payment_url, { method: 'POST', headers: headers(first) });
    expect([reply.status, reply.json()]).toEqual([403, { error: NodeErrorMessage.InvalidPayment }]);
  });

  it.each<[string, string, number, string]>([
    [
      'an unknown manifest',
      JSON.stringify({ sender: `0x${'1'.repeat(40)}`, manifest_id: 'nope' }),
      404,
      NodeErrorMessage.PaymentChallengeNotFound,
    ],
    ['a malformed body', '{"sender":1}', 400, NodeErrorMessage.InvalidRefreshRequest],
  ])('answers /refresh-payment for %s', async (_name, body, status, error) => {
    const reply = await call(`${paid.fx.url}/refresh-payment`, { method: 'POST', body });
    expect([reply.status, reply.json()]).toEqual([status, { error }]);
  });
});

describe('paid reservation refusals', () => {
  it('answers 403 for payment headers naming an unknown challenge', async () => {
    const { fx, payer } = paid;
    const { paid: first } = await reservePaid(paid);
    const segment = JSON.parse(Buffer.from(first.segCreds, 'base64').toString('utf8')) as {
      manifestId: string;
      auth: { sessionId: string };
    };
    const forged = Buffer.from(
      JSON.stringify({ ...segment, manifestId: 'unknown', auth: { ...segment.auth, sessionId: 'unknown' } }),
    ).toString('base64');
    const reply = await call(`${fx.url}/apps/paid/session`, {
      method: 'POST',
      headers: { ...paidHeaders(payer, first), 'Livepeer-Segment': forged },
    });
    expect([reply.status, reply.json()]).toEqual([403, { error: NodeErrorMessage.PaymentChallengeNotFound }]);
  });

  it('answers 409 to a top-up of a fixed-price persistent session', async () => {
    const { fx, payer } = paid;
    await register(fx, {
      runner_id: 'pfixed',
      runner_url: app.url,
      app: 'echo',
      price_info: { price: 0.01, currency: 'usd', unit: 'fixed' },
    });
    const first = await call(`${fx.url}/apps/pfixed/session`, {
      method: 'POST',
      headers: { 'Livepeer-Payer-Address': payer },
    });
    const challenge = PaymentChallengeSchema.parse(first.json());
    const payment = GenerateLivePaymentResponseSchema.parse((await sign(fx, challenge, 'fixed')).json());
    expect(
      (await call(`${fx.url}/apps/pfixed/session`, { method: 'POST', headers: paidHeaders(payer, payment) }))
        .status,
    ).toBe(200);
    const topUp = await call(challenge.payment_url, { method: 'POST', headers: paidHeaders(payer, payment) });
    expect([topUp.status, topUp.json()]).toEqual([409, { error: NodeErrorMessage.FixedPriceNoFollowUp }]);
  });
});

describe('signer refusals', () => {
  it.each<[string, (body: Record<string, unknown>) => Record<string, unknown>, number, string]>([
    [
      'a price above maxPrice',
      (body) => ({ ...body, maxPrice: { price: 1, currency: 'wei', unit: 'seconds' } }),
      481,
      'orchestrator price exceeds maxPrice',
    ],
    [
      'a maxPrice in the wrong unit',
      (body) => ({ ...body, maxPrice: { price: 1e13, currency: 'wei', unit: 'fixed' } }),
      400,
      'maxPrice unit does not match payment type',
    ],
    [
      'a tampered state',
      (body) => ({ ...body, state: { state: 'e30=', sig: 'AAAA' } }),
      400,
      'invalid state signature',
    ],
    [
      'another manifest',
      (body) => ({ ...body, ManifestID: 'other' }),
      400,
      'manifest ID does not match payment params',
    ],
    ['an unsupported type', (body) => ({ ...body, type: 'lv2v' }), 400, 'payment type must be live or fixed'],
    [
      'params that are not ours',
      (body) => ({ ...body, orchestrator: 'bm90IGpzb24=' }),
      400,
      'invalid orchestrator Protobuf',
    ],
  ])('answers %s', async (_name, patch, status, error) => {
    const { fx, payer } = paid;
    const first = await call(`${fx.url}/apps/paid/session`, {
      method: 'POST',
      headers: { 'Livepeer-Payer-Address': payer },
    });
    const challenge = PaymentChallengeSchema.parse(first.json());
    const body = { orchestrator: challenge.payment_params, type: 'live', ManifestID: challenge.manifest_id };
    const reply = await call(`${fx.url}/generate-live-payment`, {
      method: 'POST',
      body: JSON.stringify(patch(body)),
    });
    expect([reply.status, reply.json()]).toEqual([status, { error }]);
  });
});

describe('paid single-shot with a fixed price', () => {
  it('charges once, proxies with the manifest as session, releases, and has no session to top up', async () => {
    const { fx, payer } = paid;
    const first = await call(`${fx.url}/apps/fixed/app/run`, {
      method: 'POST',
      headers: { 'Livepeer-Payer-Address': payer },
      body: '{}',
    });
    const challenge = PaymentChallengeSchema.parse(first.json());
    const payment = GenerateLivePaymentResponseSchema.parse((await sign(fx, challenge, 'fixed')).json());
    const reply = await call(`${fx.url}/apps/fixed/app/run`, {
      method: 'POST',
      headers: paidHeaders(payer, payment),
      body: '{"x":1}',
    });
    expect(reply.json()).toMatchObject({ url: '/run', body: '{"x":1}' });
    expect(reply.json<{ headers: Record<string, string> }>().headers['livepeer-session-id']).toBe(
      challenge.manifest_id,
    );
    expect(fx.sim.context.runners.counts().sessions).toBe(0);
    expect(
      (await call(challenge.payment_url, { method: 'POST', headers: paidHeaders(payer, payment) })).status,
    ).toBe(404);
  });
});

describe('durability before credit', () => {
  it('refuses the payment and releases the reservation when winners cannot be stored', async () => {
    await paid.fx.stop();
    paid = await startPaidFixture(app.url, app.grant, {
      store: () => Promise.reject(new Error('disk full')),
    });
    const last = await reservePaid(paid);
    expect([last.reply.status, last.reply.json()]).toEqual([400, { error: 'winning ticket storage failed' }]);
    expect(paid.fx.sim.context.runners.counts().sessions).toBe(0);
  });
});
