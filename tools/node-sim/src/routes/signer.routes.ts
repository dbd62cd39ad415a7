import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { readBody } from '../http/body';
import { fail, writeJson } from '../http/respond';
import type { Router } from '../http/router';
import type { PaymentRequest, SignerReply, SimulatedSigner } from '../payments/signer';
import type { SignerStateBody } from '../payments/wire';
import { decodeBlob, WireOrchestratorInfoSchema } from '../payments/wire';
import { discoverOrchestrators, type SignerDiscoverySource } from './signer-discovery';

const RequestSchema = z.object({
  orchestrator: z.string(),
  type: z.string(),
  ManifestID: z.string().optional(),
  app: z.string().optional(),
  state: z.object({ state: z.string().optional(), sig: z.string().optional() }).optional(),
  maxPrice: z
    .object({ price: z.union([z.number(), z.string()]), currency: z.string(), unit: z.string() })
    .optional(),
  capabilities: z.string().optional(),
});

type Parsed = { request: PaymentRequest; maxPrice: z.infer<typeof RequestSchema>['maxPrice'] };

function parseRequest(text: string, now: number): Parsed | SignerReply {
  let raw: z.infer<typeof RequestSchema>;
  try {
    const parsed = RequestSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return { status: 400, body: { error: 'invalid payment request' } };
    raw = parsed.data;
  } catch {
    return { status: 400, body: { error: 'invalid payment request' } };
  }
  if (raw.type !== 'live' && raw.type !== 'fixed')
    return { status: 400, body: { error: 'payment type must be live or fixed' } };
  if (raw.capabilities) return { status: 400, body: { error: 'payment capabilities are unsupported' } };
  const info = decodeBlob(WireOrchestratorInfoSchema, raw.orchestrator);
  if (!info) return { status: 400, body: { error: 'invalid orchestrator Protobuf' } };
  if (
    info.address !== info.ticketParams.recipient ||
    info.auth.sessionId === '' ||
    BigInt(info.price.pricePerUnit) <= 0n
  ) {
    return { status: 400, body: { error: 'incomplete or expired orchestrator payment params' } };
  }
  if (info.auth.expiration <= Math.floor(now / 1000) + 60) {
    return {
      status: 480,
      body: { error: 'refresh expired orchestrator authentication' },
      headers: { 'Livepeer-Orchestrator-URL': info.transcoder },
    };
  }
  const manifestId = raw.ManifestID || info.auth.sessionId;
  if (manifestId !== info.auth.sessionId)
    return { status: 400, body: { error: 'manifest ID does not match payment params' } };
  const hasState = Boolean(raw.state?.state || raw.state?.sig);
  const state = hasState ? { state: raw.state?.state ?? '', sig: raw.state?.sig ?? '' } : undefined;
  return { request: { info, type: raw.type, manifestId, app: raw.app ?? '', state }, maxPrice: raw.maxPrice };
}

function checkMaxPrice(parsed: Parsed): SignerReply | undefined {
  const { maxPrice, request } = parsed;
  if (!maxPrice) return undefined;
  const ceiling = Number(maxPrice.price);
  const unit = request.type === 'live' ? 'seconds' : 'fixed';
  if (!(ceiling > 0) || maxPrice.currency.trim().toLowerCase() !== 'wei')
    return { status: 400, body: { error: 'maxPrice requires a positive wei price' } };
  if (maxPrice.unit.trim().toLowerCase() !== unit)
    return { status: 400, body: { error: 'maxPrice unit does not match payment type' } };
  if (Number(request.info.price.pricePerUnit) > ceiling)
    return { status: 481, body: { error: 'orchestrator price exceeds maxPrice' } };
  return undefined;
}

function openState(signer: SimulatedSigner, request: PaymentRequest): SignerStateBody | SignerReply {
  if (!request.state) return signer.newState(request);
  const state = signer.openState(request.state);
  if (state === 'bad-signature') return { status: 400, body: { error: 'invalid state signature' } };
  if (state === 'bad-state') return { status: 400, body: { error: 'invalid payment state' } };
  if (
    state.orchestratorAddress !== request.info.address ||
    state.app !== request.app ||
    state.type !== request.type ||
    state.manifestId !== request.manifestId
  ) {
    return { status: 400, body: { error: 'payment state scope mismatch' } };
  }
  return state;
}

async function generate(
  signer: SimulatedSigner,
  now: () => number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readBody(req, 1 << 20);
  if (!body) return fail(res, 400, 'payment request too large');
  const parsed = parseRequest(body.toString('utf8'), now());
  const reply = ((): SignerReply => {
    if ('status' in parsed) return parsed;
    const ceiling = checkMaxPrice(parsed);
    if (ceiling) return ceiling;
    const state = openState(signer, parsed.request);
    if ('status' in state) return state;
    if (BigInt(parsed.request.info.price.pricePerUnit) > BigInt(state.initialPrice)) {
      return { status: 481, body: { error: 'orchestrator price exceeds initial session price' } };
    }
    return signer.generate(parsed.request, state, parsed.request.state === undefined);
  })();
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  writeJson(res, reply.status, reply.body);
}

/** The simulated remote signer's routes (served on the public listener in paid mode). */
export function addSignerRoutes(
  router: Router,
  signer: SimulatedSigner,
  now: () => number,
  discovery: SignerDiscoverySource,
): void {
  router
    .add('POST', '/sign-orchestrator-info', (_req, res) => writeJson(res, 200, signer.signInfo()))
    .add('POST', '/generate-live-payment', (req, res) => generate(signer, now, req, res))
    .add('GET', '/discover-orchestrators', (req, res) => discoverOrchestrators(discovery, req, res));
}
