import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import type { DestinationPolicy } from './destination-policy';
import { dialAddress } from './destination-policy';
import type { SessionHeaders } from './forward-headers';
import { outboundHeaders, upstreamPath } from './forward-headers';

/** One proxied request: where it goes and which session owns it. */
export interface UpstreamRequest {
  readonly target: URL;
  /** The app path after `/app/` (or after the proxy id), percent-decoded. */
  readonly appPath: string;
  readonly session: SessionHeaders;
  /** Aborted when the session is released. */
  readonly signal: AbortSignal;
  readonly policy: DestinationPolicy;
}

/** Connection settings of the runner transport (Node: 10 s dial, 1 min response headers). */
export interface UpstreamSettings {
  readonly httpAgent: Agent;
  readonly httpsAgent: HttpsAgent;
  readonly dialTimeoutMs: number;
  readonly headerTimeoutMs: number;
}

/** Opens the outbound request; the policy is applied at dial time (throws for a denied IP literal). */
export function openUpstream(
  req: IncomingMessage,
  upstream: UpstreamRequest,
  settings: UpstreamSettings,
  agent: 'pooled' | 'dedicated',
): ClientRequest {
  const { target } = upstream;
  const address = dialAddress(target);
  const host = target.hostname.replace(/^\[|\]$/gu, '');
  if (isIP(host)) upstream.policy.assertAllowed(address, [host]);
  const https = target.protocol === 'https:';
  const query = (req.url ?? '').split('?').slice(1).join('?');
  const options: RequestOptions = {
    host,
    port: target.port === '' ? (https ? 443 : 80) : Number(target.port),
    method: req.method,
    path: upstreamPath(target, upstream.appPath, query),
    headers: outboundHeaders(req, target, upstream.session),
    agent: agent === 'dedicated' ? false : https ? settings.httpsAgent : settings.httpAgent,
    lookup: isIP(host) ? undefined : upstream.policy.lookupFor(address),
  };
  const outbound = https
    ? httpsRequest({ ...options, servername: isIP(host) ? undefined : host })
    : httpRequest(options);
  armTimeouts(outbound, settings);
  return outbound;
}

function armTimeouts(outbound: ClientRequest, settings: UpstreamSettings): void {
  const headerTimer = setTimeout(
    () => outbound.destroy(new Error('response header timeout')),
    settings.headerTimeoutMs,
  );
  headerTimer.unref();
  outbound.once('response', () => clearTimeout(headerTimer));
  outbound.once('upgrade', () => clearTimeout(headerTimer));
  outbound.once('close', () => clearTimeout(headerTimer));
  outbound.once('socket', (socket) => {
    if (!socket.connecting) return;
    const dialTimer = setTimeout(() => outbound.destroy(new Error('dial timeout')), settings.dialTimeoutMs);
    dialTimer.unref();
    socket.once('connect', () => clearTimeout(dialTimer));
    socket.once('close', () => clearTimeout(dialTimer));
  });
}
