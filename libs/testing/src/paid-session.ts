import {
  GenerateLivePaymentResponseSchema,
  PaymentChallengeSchema,
  SignOrchestratorInfoResponseSchema,
} from '@sandbox/protocol';

const post = (url: string, headers: Record<string, string>, body: unknown): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The paid retry's answer, and the `Livepeer-Payment` blob that paid for it. */
export interface PaidSession {
  status: number;
  payment: string;
}

/**
 * A client buying one live session of `app` the way Node's gateway clients do, against a URL that
 * serves both Node's app routes and its signer (node-sim in paid mode): the payer address from
 * `/sign-orchestrator-info`, the 402 challenge, a payment from `/generate-live-payment`, the paid retry.
 */
export async function buyPaidSession(url: string, app: string): Promise<PaidSession> {
  const info = SignOrchestratorInfoResponseSchema.parse(
    await (await post(`${url}/sign-orchestrator-info`, {}, {})).json(),
  );
  const payer = { 'Livepeer-Payer-Address': info.address };
  const challenge = PaymentChallengeSchema.parse(
    await (await post(`${url}/apps/${app}/session`, payer, {})).json(),
  );
  const paid = GenerateLivePaymentResponseSchema.parse(
    await (
      await post(
        `${url}/generate-live-payment`,
        {},
        { orchestrator: challenge.payment_params, type: 'live', ManifestID: challenge.manifest_id },
      )
    ).json(),
  );
  const reply = await post(
    `${url}/apps/${app}/session`,
    { ...payer, 'Livepeer-Payment': paid.payment, 'Livepeer-Segment': paid.segCreds },
    {},
  );
  await reply.body?.cancel();
  return { status: reply.status, payment: paid.payment };
}
