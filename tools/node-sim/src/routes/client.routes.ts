import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeErrorMessage } from '@sandbox/protocol';
import { fail, rawNumber, writeJson } from '../http/respond';
import type { PathValues, Router } from '../http/router';
import type { AdvertisedPriceValue } from '../registry/price';
import { isPaid } from '../registry/price';
import type { DiscoveryRunnerValue } from '../registry/runner-registry';
import type { SimContext } from '../sim-context';

/** Node's `priceInfo` JSON: `price` and `price_usd` are Go `json.Number`s, written verbatim. */
export function priceJson(price: AdvertisedPriceValue): Record<string, unknown> {
  return {
    price: rawNumber(price.wei.toString()),
    price_usd: price.usd === '' ? undefined : rawNumber(price.usd),
    currency: price.currency,
    unit: price.unit,
  };
}

/** One runner of `GET /discovery`, in Node's field order. */
export function discoveryRunnerJson(item: DiscoveryRunnerValue): Record<string, unknown> {
  const { profile } = item.runner;
  const gpu = profile.gpu && {
    id: profile.gpu.id || undefined,
    name: profile.gpu.name || undefined,
    vram_mb: profile.gpu.vramMb || undefined,
  };
  // Field order and omitempty of Node's discoveryRunner struct; there is no runner id field.
  return {
    url: item.url,
    app: profile.app,
    version: profile.version || undefined,
    metadata: profile.metadata || undefined,
    gpu,
    mode: profile.mode,
    capacity: profile.capacity,
    capacity_used: item.capacityUsed,
    capacity_available: item.capacityAvailable,
    // `omitzero` (orchestrator/registry.go@e6ed85a9): a free runner's zero price is left out.
    price_info: isPaid(item.price) ? priceJson(item.price) : undefined,
  };
}

function discovery(ctx: SimContext, res: ServerResponse): void {
  writeJson(res, 200, [
    { address: ctx.state.config.serviceUrl, runners: ctx.runners.discovery().map(discoveryRunnerJson) },
  ]);
}

/** `POST /apps/{rid}/session`: mode and price first (as Node's paid path does), then the reservation. */
async function reserve(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  params: PathValues,
): Promise<void> {
  const runnerId = params.runner_id ?? '';
  const mode = ctx.sessions.modeForRunner(runnerId);
  if (!mode.ok) return fail(res, mode.status, mode.error);
  if (mode.value !== 'persistent') return fail(res, 400, NodeErrorMessage.RunnerNotPersistent);
  const price = ctx.payments?.reservationPrice(req, runnerId) ?? ctx.sessions.priceForRunner(runnerId);
  if (!price.ok) return fail(res, price.status, price.error);
  if (isPaid(price.value) && ctx.payments && (await ctx.payments.reserve(req, res, runnerId, price.value)))
    return;
  const outcome = ctx.sessions.reserve(runnerId);
  if (!outcome.ok) return fail(res, outcome.status, outcome.error);
  // Go encodes map[string]string with sorted keys.
  const { appUrl, controlUrl, sessionId } = outcome.value;
  writeJson(res, 200, { app_url: appUrl, control_url: controlUrl, session_id: sessionId });
}

function clientStop(ctx: SimContext, res: ServerResponse, params: PathValues): void {
  const outcome = ctx.sessions.release(params.runner_id ?? '', params.session_id ?? '', '', false);
  if (!outcome.ok) return fail(res, outcome.status, outcome.error);
  writeJson(res, 200, { ok: true });
}

/** The client-facing control routes: discovery, reservation, stop, and the payment routes. */
export function addClientRoutes(router: Router, ctx: SimContext): void {
  router
    .add('GET', '/discovery', (_req, res) => discovery(ctx, res))
    .add('POST', '/apps/{runner_id}/session', (req, res, params) => reserve(ctx, req, res, params))
    .add('POST', '/apps/{runner_id}/session/{session_id}/stop', (_req, res, params) =>
      clientStop(ctx, res, params),
    )
    .add('POST', '/apps/{runner_id}/session/{session_id}/payment', (req, res, params) =>
      ctx.payments
        ? ctx.payments.sessionPayment(req, res, params.runner_id ?? '', params.session_id ?? '')
        : fail(res, 404, NodeErrorMessage.PaymentUnavailable),
    )
    .add('POST', '/refresh-payment', (req, res) =>
      ctx.payments ? ctx.payments.refresh(req, res) : fail(res, 404, NodeErrorMessage.PaymentUnavailable),
    );
}
