import {
  GenerateLivePaymentResponseSchema,
  SignerStatus,
  SignOrchestratorInfoResponseSchema,
  type GenerateLivePaymentResponse,
  type PaymentChallenge,
  type SignerState,
} from '@sandbox/protocol';
import { platformFault } from '../run/faults';

/** The remote signer that pays for the verifier's sessions. Its credential never leaves this client. */
export interface SignerClient {
  /** The payer address tickets are signed by. */
  payerAddress(): Promise<string>;
  /**
   * Tickets for a challenge: `skip` when the carried balance covers the cycle (482), `refresh` when
   * the params or auth expired (480). Any other failure is the platform's.
   */
  pay(
    challenge: PaymentChallenge,
    state: SignerState | undefined,
  ): Promise<{ kind: 'paid'; payment: GenerateLivePaymentResponse } | { kind: 'skip' } | { kind: 'refresh' }>;
}

export interface SignerClientOptions {
  url: string;
  /** Sent as `Authorization: Bearer <credential>`. Secret. */
  credential: string;
  timeoutMs: number;
}

export function createSignerClient(options: SignerClientOptions): SignerClient {
  const base = options.url.replace(/\/+$/u, '');
  const post = async (path: string, body: unknown): Promise<Response> => {
    try {
      return await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.credential}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw platformFault('signer-unreachable', 'the signer could not be reached', error);
    }
  };
  const json = async (reply: Response): Promise<unknown> => {
    try {
      return await reply.json();
    } catch (error) {
      throw platformFault('signer-bad-answer', 'the signer answered no JSON', error);
    }
  };
  let payer: string | undefined;
  return {
    async payerAddress() {
      if (payer) return payer;
      const reply = await post('/sign-orchestrator-info', {});
      if (!reply.ok) throw platformFault('signer-refused', `the signer answered ${reply.status}`);
      const parsed = SignOrchestratorInfoResponseSchema.safeParse(await json(reply));
      if (!parsed.success) throw platformFault('signer-bad-answer', 'the signer answered an invalid body');
      payer = parsed.data.address;
      return payer;
    },
    async pay(challenge, state) {
      const reply = await post('/generate-live-payment', {
        orchestrator: challenge.payment_params,
        type: 'live',
        ManifestID: challenge.manifest_id,
        ...(state ? { state } : {}),
      });
      if (reply.status === SignerStatus.SkipCycle) return { kind: 'skip' };
      if (reply.status === SignerStatus.RefreshNeeded) return { kind: 'refresh' };
      if (!reply.ok) throw platformFault('signer-refused', `the signer answered ${reply.status}`);
      const parsed = GenerateLivePaymentResponseSchema.safeParse(await json(reply));
      if (!parsed.success) throw platformFault('signer-bad-answer', 'the signer answered an invalid body');
      return { kind: 'paid', payment: parsed.data };
    },
  };
}
