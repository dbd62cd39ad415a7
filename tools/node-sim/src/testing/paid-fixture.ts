import type { PaymentChallenge } from '@sandbox/protocol';
import {
  GenerateLivePaymentResponseSchema,
  PaymentChallengeSchema,
  SignOrchestratorInfoResponseSchema,
} from '@sandbox/protocol';
import { MAX_UINT256 } from '@sandbox/tickets';
import { parseRational } from '../go/rational';
import { MemoryWinnerSink } from '../outbox/file-outbox';
import type { WinnerSink } from '../payments/payment-engine';
import { paidMode } from '../payments/paid-mode';
import type { Reply, SimFixture } from './sim-fixture';
import { call, register, startSimFixture } from './sim-fixture';

/** What the signer returns: the two payment headers and the client-held state. */
export interface Paid {
  payment: string;
  segCreds: string;
  state: { state: string; sig: string };
}

/** A paid-mode simulator with two priced runners and the simulated signer's payer address. */
export interface PaidFixture {
  fx: SimFixture;
  sink: MemoryWinnerSink;
  payer: string;
}

/**
 * Paid mode at 1e12 wei per USD: runner `paid` (persistent, $3600/hour = 1e12 wei/s) and `fixed`
 * (single-shot, $0.002 per call). Tickets have face value 1e15 and always win unless `winProb` is
 * given, so one ticket buys 1000 s. A one-day TTL keeps runners registered while the clock jumps.
 */
export async function startPaidFixture(
  runnerUrl: string,
  grant: string,
  sink?: WinnerSink,
): Promise<PaidFixture> {
  const memory = new MemoryWinnerSink();
  const fx = await startSimFixture(
    { runnerGrants: [grant], weiPerUsd: parseRational('1000000000000'), heartbeatTtlMs: 86_400_000 },
    { payments: paidMode({ faceValue: 10n ** 15n, winProb: MAX_UINT256, sink: sink ?? memory }) },
  );
  const price = (price: number, unit: string): Record<string, unknown> => ({ price, currency: 'usd', unit });
  await register(fx, {
    runner_id: 'paid',
    runner_url: runnerUrl,
    app: 'echo',
    capacity: 2,
    price_info: price(3600, 'hour'),
  });
  await register(fx, {
    runner_id: 'fixed',
    runner_url: runnerUrl,
    app: 'hello',
    mode: 'single-shot',
    price_info: price(0.002, 'fixed'),
  });
  const info = await call(`${fx.url}/sign-orchestrator-info`, { method: 'POST', body: '{}' });
  return { fx, sink: memory, payer: SignOrchestratorInfoResponseSchema.parse(info.json()).address };
}

/** `POST /generate-live-payment` on the simulated signer. */
export function sign(
  fx: SimFixture,
  challenge: PaymentChallenge,
  type: 'live' | 'fixed',
  state?: Paid['state'],
): Promise<Reply> {
  return call(`${fx.url}/generate-live-payment`, {
    method: 'POST',
    body: JSON.stringify({
      orchestrator: challenge.payment_params,
      type,
      ManifestID: challenge.manifest_id,
      state,
    }),
  });
}

export function paidHeaders(payer: string, paid: Paid): Record<string, string> {
  return {
    'Livepeer-Payer-Address': payer,
    'Livepeer-Payment': paid.payment,
    'Livepeer-Segment': paid.segCreds,
  };
}

/** The client flow for runner `paid`: 402, signer, paid retry. */
export async function reservePaid(
  paid: PaidFixture,
): Promise<{ challenge: PaymentChallenge; paid: Paid; reply: Reply }> {
  const { fx, payer } = paid;
  const first = await call(`${fx.url}/apps/paid/session`, {
    method: 'POST',
    headers: { 'Livepeer-Payer-Address': payer },
  });
  if (first.status !== 402) throw new Error(`expected a 402 challenge, got ${first.status}`);
  const challenge = PaymentChallengeSchema.parse(first.json());
  const payment = GenerateLivePaymentResponseSchema.parse((await sign(fx, challenge, 'live')).json());
  const reply = await call(`${fx.url}/apps/paid/session`, {
    method: 'POST',
    headers: paidHeaders(payer, payment),
  });
  return { challenge, paid: payment, reply };
}
