import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeErrorMessage } from '@sandbox/protocol';
import { fail } from '../http/respond';
import type { PathValues, Router } from '../http/router';
import type { DestinationPolicy } from '../proxy/destination-policy';
import { proxyHttp } from '../proxy/http-proxy';
import { proxyUpgrade } from '../proxy/upgrade-proxy';
import type { UpstreamRequest } from '../proxy/upstream';
import { isPaid } from '../registry/price';
import type { SessionRoute } from '../registry/session-registry';
import type { SimContext } from '../sim-context';

/** Sends one request (or upgrade) to the runner; resolves when the exchange ends. */
function forward(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  route: SessionRoute,
  appPath: string,
  policy: DestinationPolicy,
): Promise<void> {
  const upstream: UpstreamRequest = {
    target: route.target,
    appPath,
    session: {
      runnerId: route.runnerId,
      sessionId: route.sessionId,
      token: route.token,
      control: ctx.state.sessionControlUrl(route.runnerId, route.sessionId),
    },
    signal: route.signal,
    policy,
  };
  const onFailure = (): void =>
    ctx.logger.warn(
      { runnerId: route.runnerId, sessionId: route.sessionId, errorKind: 'upstream_failure' },
      'runner proxy failed',
    );
  const upgrade = ctx.upgrades.get(req);
  if (!upgrade) return proxyHttp(req, res, upstream, ctx.upstream, onFailure);
  return new Promise((resolve) => {
    upgrade.socket.once('close', () => resolve());
    proxyUpgrade(req, res, upgrade, upstream, ctx.upstream, onFailure);
  });
}

function forwardSession(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  runnerId: string,
  sessionId: string,
  appPath: string,
): Promise<void> {
  const route = ctx.sessions.sessionRoute(runnerId, sessionId);
  if (!route.ok) {
    fail(res, route.status, route.error);
    return Promise.resolve();
  }
  return forward(ctx, req, res, route.value, appPath, ctx.runnerPolicy);
}

/** `* /apps/{rid}/app/...`: a transient session around one request, released when it ends. */
async function proxySingleShot(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  runnerId: string,
  appPath: string,
): Promise<void> {
  const mode = ctx.sessions.modeForRunner(runnerId);
  if (!mode.ok) return fail(res, mode.status, mode.error);
  if (mode.value !== 'single-shot') return fail(res, 400, NodeErrorMessage.RunnerNotSingleShot);
  const price = ctx.payments?.reservationPrice(req, runnerId) ?? ctx.sessions.priceForRunner(runnerId);
  if (!price.ok) return fail(res, price.status, price.error);
  const send = (rid: string, sid: string): Promise<void> => forwardSession(ctx, req, res, rid, sid, appPath);
  if (
    isPaid(price.value) &&
    ctx.payments &&
    (await ctx.payments.singleShot(req, res, runnerId, price.value, send))
  )
    return;
  const reserved = ctx.sessions.reserve(runnerId, ctx.state.newId('session'));
  if (!reserved.ok) return fail(res, reserved.status, reserved.error);
  try {
    await send(runnerId, reserved.value.sessionId);
  } finally {
    ctx.sessions.releaseBySession(reserved.value.sessionId);
  }
}

async function proxyGenerated(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  params: PathValues,
): Promise<void> {
  const proxyId = params.proxy_id ?? '';
  const appPath = params.app_path ?? '';
  if (ctx.sessions.singleShotProxy(proxyId)) return proxySingleShot(ctx, req, res, proxyId, appPath);
  const route = ctx.sessions.proxyRoute(proxyId);
  if (!route) return fail(res, 404, NodeErrorMessage.ProxyNotFound);
  return forward(
    ctx,
    req,
    res,
    route,
    appPath,
    route.proxy.runner ? ctx.runnerPolicy : ctx.sessionProxyPolicy,
  );
}

/** The streaming routes: session proxy, single-shot proxy and generated proxies (`/run/`, `/proxy/`). */
export function addProxyRoutes(router: Router, ctx: SimContext): void {
  const session = (req: IncomingMessage, res: ServerResponse, params: PathValues): Promise<void> =>
    forwardSession(ctx, req, res, params.runner_id ?? '', params.session_id ?? '', params.app_path ?? '');
  const singleShot = (req: IncomingMessage, res: ServerResponse, params: PathValues): Promise<void> =>
    proxySingleShot(ctx, req, res, params.runner_id ?? '', params.app_path ?? '');
  const generated = (req: IncomingMessage, res: ServerResponse, params: PathValues): Promise<void> =>
    proxyGenerated(ctx, req, res, params);
  router
    .add(undefined, '/apps/{runner_id}/session/{session_id}/app', session)
    .add(undefined, '/apps/{runner_id}/session/{session_id}/app/{app_path...}', session)
    .add(undefined, '/apps/{runner_id}/app', singleShot)
    .add(undefined, '/apps/{runner_id}/app/{app_path...}', singleShot)
    .add(undefined, '/proxy/{proxy_id}', generated)
    .add(undefined, '/proxy/{proxy_id}/{app_path...}', generated)
    .add(undefined, '/run/{proxy_id}', generated)
    .add(undefined, '/run/{proxy_id}/{app_path...}', generated);
}
