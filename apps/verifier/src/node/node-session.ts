import {
  NodeHeader,
  PaymentChallengeSchema,
  ReservationResponseSchema,
  type GenerateLivePaymentResponse,
  type PaymentChallenge,
  type ReservationResponse,
  type SignerState,
} from '@sandbox/protocol';
import type { ServiceLogger } from '@sandbox/service-kit';
import type { RunFault } from '../run/faults';
import { statusFault, targetFault, targetPathFault, unknownFault } from '../run/faults';
import type { ReliabilityCounter } from '../run/reliability';
import type { SignerClient } from './signer-client';
import type { DiscoveredRunner } from './discovery';

/** A reserved, paid persistent session; `stop()` always ends it (idempotent). */
export interface NodeSession {
  readonly sessionId: string;
  readonly appUrl: string;
  /** Pays the next cycle when the signer says it is due (Node meters every second). */
  topUp(): Promise<void>;
  stop(): Promise<void>;
}

export interface NodeSessionDeps {
  signer: SignerClient;
  /** Counts into the evaluation in progress (a session outlives each of them). */
  reliability: Pick<ReliabilityCounter, 'request' | 'fail'>;
  logger: ServiceLogger;
  timeoutMs: number;
}

interface PaidState {
  challenge: PaymentChallenge;
  state: SignerState | undefined;
}

async function post(
  url: string,
  headers: Record<string, string>,
  deps: NodeSessionDeps,
  step: string,
  body?: string,
) {
  deps.reliability.request();
  try {
    return await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(deps.timeoutMs) });
  } catch (error) {
    const fault = targetPathFault(step, error);
    if (fault.failureKind) deps.reliability.fail(fault.failureKind);
    throw fault;
  }
}

/** The headers that carry a payment to Node (reservation, single-shot call, top-up). */
export function paymentHeaders(payer: string, payment: GenerateLivePaymentResponse): Record<string, string> {
  return {
    [NodeHeader.PayerAddress]: payer,
    [NodeHeader.Payment]: payment.payment,
    [NodeHeader.Segment]: payment.segCreds,
  };
}

async function challengeOf(reply: Response, step: string): Promise<PaymentChallenge> {
  const parsed = PaymentChallengeSchema.safeParse(await reply.json().catch(() => undefined));
  if (!parsed.success) throw targetFault(`${step}-invalid`, `${step} answered an invalid challenge`, 'other');
  return parsed.data;
}

/** Node refused a payment our signer made: either side may be wrong. */
function refusedPayment(step: string, status: number): RunFault {
  return unknownFault(`${step}-payment-refused`, `Node refused the signer's payment (${status})`);
}

/**
 * Reserves a persistent session on the runner through Node's 402 flow: the challenge, tickets from
 * the remote signer, the paid retry. A free runner answers 200 at once.
 */
export async function reserveSession(runner: DiscoveredRunner, deps: NodeSessionDeps): Promise<NodeSession> {
  const payer = await deps.signer.payerAddress();
  const reserveUrl = runner.runner.url;
  const first = await post(reserveUrl, { [NodeHeader.PayerAddress]: payer }, deps, 'reserve');
  let reservation: ReservationResponse;
  let paid: PaidState | undefined;
  if (first.status === 402) {
    const challenge = await challengeOf(first, 'reserve');
    const answer = await deps.signer.pay(challenge, undefined);
    if (answer.kind !== 'paid')
      throw unknownFault('reserve-payment-not-issued', 'the signer issued no payment');
    const second = await post(reserveUrl, paymentHeaders(payer, answer.payment), deps, 'reserve');
    if (second.status === 403 || second.status === 402) throw refusedPayment('reserve', second.status);
    if (!second.ok) throw statusFault('reserve', second.status);
    reservation = await parseReservation(second);
    paid = { challenge, state: answer.payment.state };
  } else if (first.ok) {
    reservation = await parseReservation(first);
  } else throw statusFault('reserve', first.status);
  deps.logger.info({ runner_id: runner.runnerId, session_id: reservation.session_id }, 'session reserved');
  return openSession(runner, reservation, payer, paid, deps);
}

async function parseReservation(reply: Response): Promise<ReservationResponse> {
  const parsed = ReservationResponseSchema.safeParse(await reply.json().catch(() => undefined));
  if (!parsed.success) throw targetFault('reserve-invalid', 'the reservation answer is invalid', 'other');
  return parsed.data;
}

function openSession(
  runner: DiscoveredRunner,
  reservation: ReservationResponse,
  payer: string,
  paid: PaidState | undefined,
  deps: NodeSessionDeps,
): NodeSession {
  let stopped = false;
  const log = { runner_id: runner.runnerId, session_id: reservation.session_id };
  return {
    sessionId: reservation.session_id,
    appUrl: reservation.app_url,
    async topUp() {
      if (!paid || stopped) return;
      let answer = await deps.signer.pay(paid.challenge, paid.state);
      if (answer.kind === 'refresh') {
        const refreshUrl = `${runner.orchestratorUrl.replace(/\/+$/u, '')}/refresh-payment`;
        const body = JSON.stringify({ sender: payer, manifest_id: paid.challenge.manifest_id });
        const reply = await post(refreshUrl, { 'content-type': 'application/json' }, deps, 'refresh', body);
        if (!reply.ok) throw statusFault('refresh', reply.status);
        paid.challenge = await challengeOf(reply, 'refresh');
        answer = await deps.signer.pay(paid.challenge, paid.state);
      }
      if (answer.kind !== 'paid') return;
      const reply = await post(
        paid.challenge.payment_url,
        paymentHeaders(payer, answer.payment),
        deps,
        'top-up',
      );
      if (reply.status === 403) throw refusedPayment('top-up', reply.status);
      if (!reply.ok) throw statusFault('top-up', reply.status);
      paid.state = answer.payment.state;
      paid.challenge = await challengeOf(reply, 'top-up');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        const reply = await post(`${reservation.control_url}/stop`, {}, deps, 'stop');
        deps.logger.info({ ...log, status: reply.status }, 'session stopped');
      } catch (error) {
        // Node releases an unpaid session on its own once the balance runs out; log and go on.
        deps.logger.warn({ ...log, err: error }, 'session stop failed');
      }
    },
  };
}
