import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DiscoveryRunner, PaymentChallenge } from '@sandbox/protocol';
import { ReliabilityCounter } from '../run/reliability';
import type { DiscoveredRunner } from './discovery';
import type { SignerClient } from './signer-client';
import { singleShotCaller } from './single-shot';

const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
let answer: { status: number; body: unknown } = { status: 402, body: {} };
const server = createServer((req, res) => {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
});
let base = '';

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const PAYER = `0x${'ab'.repeat(20)}`;
const signer: SignerClient = {
  payerAddress: () => Promise.resolve(PAYER),
  pay: (challenge: PaymentChallenge) =>
    Promise.resolve({
      kind: 'paid',
      payment: { payment: `pay-for-${challenge.manifest_id}`, segCreds: 'seg', state: undefined },
    } as never),
};

function runner(price: DiscoveryRunner['price_info']): DiscoveredRunner {
  return {
    orchestratorUrl: base,
    runnerId: 'shot',
    runner: {
      url: `${base}/apps/shot/app`,
      app: 'eval-shot',
      mode: 'single-shot',
      capacity: 1,
      capacity_used: 0,
      capacity_available: 1,
      ...(price === undefined ? {} : { price_info: price }),
    },
  };
}

const deps = () => ({
  signer,
  reliability: new ReliabilityCounter(),
  timeoutMs: 2_000,
  signal: new AbortController().signal,
});

describe('singleShotCaller', () => {
  it('calls a free runner directly, without a 402 leg', async () => {
    seen.length = 0;
    const call = await singleShotCaller(runner(undefined), deps())('hash', '/v1/hash', 'POST');
    expect(call).toEqual({
      url: `${base}/apps/shot/app/v1/hash`,
      headers: {},
      sessionId: undefined,
      paid: false,
    });
    expect(seen).toHaveLength(0);
  });

  it("pays a priced runner's challenge and names the call's session", async () => {
    seen.length = 0;
    answer = {
      status: 402,
      body: {
        manifest_id: 'sess-1',
        payment_params: 'AAAA',
        orchestrator: base,
        payment_url: `${base}/apps/shot/session/sess-1/payment`,
      },
    };
    const counting = deps();
    const caller = singleShotCaller(runner({ price: 10, unit: 'fixed', currency: 'wei' } as never), counting);
    const call = await caller('hash', '/v1/hash', 'POST');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/apps/shot/app/v1/hash' });
    expect(seen[0]?.headers['livepeer-payer-address']).toBe(PAYER);
    expect(call).toMatchObject({ sessionId: 'sess-1', paid: true });
    expect(Object.values(call.headers)).toContain('pay-for-sess-1');
    expect(counting.reliability.requests).toBe(1);
  });

  it('blames the target when Node answers the unpaid leg with anything but a challenge', async () => {
    answer = { status: 503, body: {} };
    const counting = deps();
    const caller = singleShotCaller(runner({ price: 10, unit: 'fixed', currency: 'wei' } as never), counting);
    await expect(caller('latency', '/v1/echo', 'GET')).rejects.toMatchObject({
      attribution: 'target',
      reasonCode: 'latency-challenge-http-5xx',
    });
    expect(counting.reliability.failures['http-5xx']).toBe(1);
  });
});
