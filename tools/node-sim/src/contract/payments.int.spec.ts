import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  HeartbeatRuleMessage,
  NodeErrorMessage,
  PaymentChallengeSchema,
  WinningTicketSchema,
} from '@sandbox/protocol';
import {
  checkWinningTicket,
  computeTicketHash,
  hexToBytes,
  isWinningTicket,
  recoverEthSigner,
} from '@sandbox/tickets';
import type { PaidFixture } from '../testing/paid-fixture';
import { reservePaid, startPaidFixture } from '../testing/paid-fixture';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';
import { BOOTSTRAP_SECRET, call, heartbeat } from '../testing/sim-fixture';

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

// orchestrator/registry.go@e6ed85a9 (`normalizePriceAt`, called after `validateHeartbeat` and before
// the credential checks): with a wei/USD rate every runner needs a price above zero.
describe('paid mode: runner prices', () => {
  const positive = HeartbeatRuleMessage.PositivePriceOnChain;
  const body = (extra: Record<string, unknown>) => ({
    runner_id: 'unpriced',
    runner_url: app.url,
    app: 'echo',
    ...extra,
  });

  it.each<[string, Record<string, unknown>]>([
    ['no price_info (a free app)', {}],
    ['price 0', { price_info: { price: 0, currency: 'usd', unit: 'hour' } }],
    ['price "0.0" in a string', { price_info: { price: '0.0', unit: 'fixed' } }],
    ['a negative price (before the nonnegative rule)', { price_info: { price: -1, unit: 'hour' } }],
    ['price 0 in EUR (before the currency rule)', { price_info: { price: 0, currency: 'eur' } }],
  ])("refuses %s with 400 and Node's message", async (_name, extra) => {
    const reply = await heartbeat(paid.fx, BOOTSTRAP_SECRET, body(extra));
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ error: positive });
    const discovery = (await call(`${paid.fx.url}/discovery`)).text;
    expect(discovery).not.toContain('/apps/unpriced/');
  });

  it('applies the body rules first and the price rule before any credential check', async () => {
    const unit = await heartbeat(paid.fx, BOOTSTRAP_SECRET, body({ price_info: { unit: 'minute' } }));
    expect(unit.json()).toEqual({ error: HeartbeatRuleMessage.Unit });
    const runnerId = await heartbeat(paid.fx, BOOTSTRAP_SECRET, body({ runner_id: 'a/b' }));
    expect(runnerId.json()).toEqual({ error: HeartbeatRuleMessage.RunnerId });
    // An existing runner's own credential, with its price dropped: still the price rule (400, not 401).
    const registered = await heartbeat(
      paid.fx,
      BOOTSTRAP_SECRET,
      body({ runner_id: 'priced', price_info: { price: 1, unit: 'hour' } }),
    );
    const secret = registered.json<{ heartbeat_secret: string }>().heartbeat_secret;
    const dropped = await heartbeat(paid.fx, secret, body({ runner_id: 'priced' }));
    expect([dropped.status, dropped.json()]).toEqual([400, { error: positive }]);
  });
});

// signer/service.go@545d43d5 (`discover`), answers as in signer/discovery_test.go@786d5819.
describe('the simulated signer: GET /discover-orchestrators', () => {
  const discoverVia = async (query: string) => {
    const reply = await call(`${paid.fx.url}/discover-orchestrators${query}`);
    expect(reply.status).toBe(200);
    return reply.json<
      Array<{ address: string; score: number; runners: Array<{ app: string }>; last_seen: string }>
    >();
  };

  it("lists this Node's runners as its discovery advertises them, with score and last_seen", async () => {
    const [entry, ...rest] = await discoverVia('');
    const advertised = (await call(`${paid.fx.url}/discovery`)).json<Array<{ runners: unknown[] }>>();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ address: paid.fx.url, score: 1, runners: advertised[0]?.runners });
    expect(Number.isNaN(Date.parse(entry?.last_seen ?? ''))).toBe(false);
  });

  it('filters by any of the apps and GPU names given, and answers [] when nothing matches', async () => {
    const apps = async (query: string) =>
      (await discoverVia(query)).flatMap((entry) => entry.runners.map((r) => r.app));
    expect(await apps('?app=hello')).toEqual(['hello']);
    expect(await apps('?app=missing&app=echo')).toEqual(['echo']);
    expect(await discoverVia('?app=missing')).toEqual([]);
    expect(await discoverVia('?gpu=H100')).toEqual([]);
  });
});

describe('discovery and the 402 challenge', () => {
  it('advertises wei prices converted from the USD quotes', async () => {
    const [entry] = (await call(`${paid.fx.url}/discovery`)).json<
      Array<{ runners: Array<{ price_info: unknown }> }>
    >();
    expect(entry?.runners.map((runner) => runner.price_info)).toEqual([
      { price: 1_000_000_000_000, price_usd: 1, currency: 'wei', unit: 'seconds' },
      { price: 2_000_000_000, price_usd: 0.002, currency: 'wei', unit: 'fixed' },
    ]);
  });

  it('answers 402 with Node challenge fields, and 402 without a payer address', async () => {
    const { fx, payer } = paid;
    const reply = await call(`${fx.url}/apps/paid/session`, {
      method: 'POST',
      headers: { 'Livepeer-Payer-Address': payer },
    });
    const challenge = PaymentChallengeSchema.parse(reply.json());
    expect(Object.keys(reply.json() as object)).toEqual([
      'payment_params',
      'orchestrator',
      'manifest_id',
      'payment_url',
    ]);
    expect(challenge).toMatchObject({
      orchestrator: fx.url,
      payment_url: `${fx.url}/apps/paid/session/${challenge.manifest_id}/payment`,
    });
    const missing = await call(`${fx.url}/apps/paid/session`, { method: 'POST' });
    expect([missing.status, missing.json()]).toEqual([402, { error: NodeErrorMessage.PayerAddressRequired }]);
    expect(fx.sim.context.runners.counts().sessions).toBe(0);
  });
});

describe('paid persistent session', () => {
  it('activates on payment with the manifest as session id, with real winning tickets stored', async () => {
    const { fx, sink, payer } = paid;
    const { challenge, reply } = await reservePaid(paid);
    expect(reply.json()).toEqual({
      app_url: `${fx.url}/apps/paid/session/${challenge.manifest_id}/app`,
      control_url: `${fx.url}/apps/paid/session/${challenge.manifest_id}`,
      session_id: challenge.manifest_id,
    });
    expect(sink.winners).toHaveLength(1);
    const winner = WinningTicketSchema.parse(sink.winners[0]);
    expect(computeTicketHash(winner)).toBe(winner.ticketHash);
    expect(recoverEthSigner(hexToBytes(winner.ticketHash), winner.sig)).toBe(winner.sender);
    expect(isWinningTicket(winner.sig, winner.recipientRand, winner.winProb)).toBe(true);
    expect(checkWinningTicket(winner)).toEqual({ ok: true });
    expect(winner.sender).toBe(payer.toLowerCase());
    const o2r = fx.sim.context.channels.o2r.get('paid') ?? '';
    expect((await call(`${fx.url}/ai/trickle/${o2r}/0`)).json()).toMatchObject({
      event: 'reserved',
      session: challenge.manifest_id,
    });
    expect((await call(`${reply.json<{ app_url: string }>().app_url}/x`)).status).toBe(200);
  });

  it('debits whole seconds, then releases the session and cuts its traffic when the balance runs dry', async () => {
    const { fx } = paid;
    const { challenge } = await reservePaid(paid);
    const balance = (): unknown =>
      fx.sim.context.payments &&
      (
        fx.sim.context.payments as unknown as { engine: { sessions: Map<string, { balance: unknown }> } }
      ).engine.sessions.get(challenge.manifest_id)?.balance;
    fx.clock.advance(3_000);
    expect(balance()).toEqual({ num: 10n ** 15n - 3n * 10n ** 12n, den: 1n });
    const stream = await fetch(`${fx.url}/apps/paid/session/${challenge.manifest_id}/app/sse`);
    const reader = stream.body?.getReader();
    await reader?.read();
    // One ticket buys exactly 1000 s; the debit of second 1001 cannot be covered.
    fx.clock.advance(997_000);
    expect(fx.sim.context.runners.counts().sessions).toBe(1);
    fx.clock.advance(1_000);
    expect(fx.sim.context.runners.counts().sessions).toBe(0);
    expect(fx.log.text()).toContain('paid session ended');
    await expect(
      (async () => {
        for (;;) if ((await reader?.read())?.done) return;
      })(),
    ).rejects.toThrow();
  });
});
