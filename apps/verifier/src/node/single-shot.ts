import { NodeHeader, PaymentChallengeSchema } from '@sandbox/protocol';
import { counted, targetFault, targetPathFault, unexpectedStatus, unknownFault } from '../run/faults';
import type { ReliabilityCounter } from '../run/reliability';
import type { SingleShotCaller } from '../plan/plan';
import type { DiscoveredRunner } from './discovery';
import { paymentHeaders } from './node-session';
import type { SignerClient } from './signer-client';

export interface SingleShotDeps {
  signer: SignerClient;
  /** Counts into the evaluation in progress. */
  reliability: Pick<ReliabilityCounter, 'request' | 'fail'>;
  timeoutMs: number;
  /** The run's deadline and the verifier's stop. */
  signal: AbortSignal;
}

/** A runner Node advertises as free (no price, or the zero price) is called without a payment. */
function isFree(runner: DiscoveredRunner): boolean {
  const price = runner.runner.price_info;
  return price === undefined || Number(price.price) === 0;
}

/**
 * Calls of a single-shot runner through Node (`/apps/{runner}/app/…`), each its own paid call: an
 * unpaid request draws Node's 402 challenge (its session is the challenge's manifest id), the signer
 * pays it, and the step sends the real request with the payment. A free runner is called directly.
 */
export function singleShotCaller(runner: DiscoveredRunner, deps: SingleShotDeps): SingleShotCaller {
  const base = runner.runner.url.replace(/\/+$/u, '');
  return async (step, path, method) => {
    const url = `${base}${path}`;
    if (isFree(runner)) return { url, headers: {}, sessionId: undefined, paid: false };
    const payer = await deps.signer.payerAddress();
    const leg = `${step}-challenge`;
    deps.reliability.request();
    let reply: Response;
    try {
      reply = await fetch(url, {
        method,
        headers: { [NodeHeader.PayerAddress]: payer },
        signal: AbortSignal.any([deps.signal, AbortSignal.timeout(deps.timeoutMs)]),
      });
    } catch (error) {
      throw counted(deps.reliability, targetPathFault(leg, error));
    }
    if (reply.status !== 402) {
      await reply.body?.cancel().catch(() => undefined);
      throw counted(deps.reliability, unexpectedStatus(leg, reply.status));
    }
    const challenge = PaymentChallengeSchema.safeParse(await reply.json().catch(() => undefined));
    if (!challenge.success)
      throw counted(
        deps.reliability,
        targetFault(`${leg}-invalid`, `${step} drew an invalid challenge`, 'other'),
      );
    const answer = await deps.signer.pay(challenge.data, undefined);
    if (answer.kind !== 'paid')
      throw unknownFault(`${step}-payment-not-issued`, 'the signer issued no payment');
    return {
      url,
      headers: paymentHeaders(payer, answer.payment),
      sessionId: challenge.data.manifest_id,
      paid: true,
    };
  };
}
