import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { NodeHeader } from '@sandbox/protocol';

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const FORWARDING = new Set(['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);

/** Headers Node injects into every proxied request (client values are overwritten). */
export interface SessionHeaders {
  runnerId: string;
  sessionId: string;
  token: string;
  control: string;
}

function connectionTokens(headers: IncomingMessage['headers']): Set<string> {
  const value = headers.connection ?? '';
  return new Set(
    value
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Drops hop-by-hop headers (and those named in `Connection`) from raw header pairs. */
export function endToEnd(
  rawHeaders: readonly string[],
  connection: Set<string>,
  drop: Set<string> = new Set(),
): Array<[string, string]> {
  const kept: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connection.has(lower) || drop.has(lower)) continue;
    kept.push([name, rawHeaders[i + 1] ?? '']);
  }
  return kept;
}

/**
 * Outbound headers as Go's ReverseProxy builds them for Node: end-to-end client headers (including
 * `Authorization` and payment headers), `Host` of the target, `X-Forwarded-*` set afresh, the four
 * `Livepeer-*` headers injected, and `Connection`/`Upgrade` kept for protocol upgrades.
 */
export function outboundHeaders(
  req: IncomingMessage,
  target: URL,
  session: SessionHeaders,
): OutgoingHttpHeaders {
  const injected = new Set(
    [NodeHeader.RunnerRoute, NodeHeader.SessionId, NodeHeader.SessionToken, NodeHeader.SessionControl].map(
      (name) => name.toLowerCase(),
    ),
  );
  const headers: OutgoingHttpHeaders = {};
  const drop = new Set([...FORWARDING, ...injected, 'host']);
  for (const [name, value] of endToEnd(req.rawHeaders, connectionTokens(req.headers), drop)) {
    const existing = headers[name];
    headers[name] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [String(existing)]), value];
  }
  if (
    String(req.headers.te ?? '')
      .toLowerCase()
      .includes('trailers')
  )
    headers.TE = 'trailers';
  const upgrade = req.headers.upgrade;
  if (upgrade !== undefined) {
    headers.Connection = 'Upgrade';
    headers.Upgrade = upgrade;
  }
  headers.Host = target.host;
  const client = req.socket.remoteAddress;
  if (client !== undefined) headers['X-Forwarded-For'] = client.replace(/^::ffff:/u, '');
  if (req.headers.host !== undefined) headers['X-Forwarded-Host'] = req.headers.host;
  headers['X-Forwarded-Proto'] = 'http';
  headers[NodeHeader.RunnerRoute] = session.runnerId;
  headers[NodeHeader.SessionId] = session.sessionId;
  headers[NodeHeader.SessionToken] = session.token;
  headers[NodeHeader.SessionControl] = session.control;
  return headers;
}

/** Response headers passed back to the client (hop-by-hop removed). */
export function responseHeaders(upstream: IncomingMessage): Array<[string, string]> {
  return endToEnd(upstream.rawHeaders, connectionTokens(upstream.headers));
}

/** Go's path escaping of a forwarded app path (unreserved and `$&+,/:;=@` kept). */
export function goPathEscape(path: string): string {
  return Array.from(Buffer.from(path, 'utf8'))
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9\-_.~$&+,/:;=@]/u.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** Target path and query: runner path + `/` + app path; runner query then client query. */
export function upstreamPath(target: URL, appPath: string, clientQuery: string): string {
  const path = `${target.pathname.replace(/\/+$/u, '')}/${goPathEscape(appPath.replace(/^\/+/u, ''))}`;
  const targetQuery = target.search.replace(/^\?/u, '');
  const query = [targetQuery, clientQuery].filter((part) => part !== '').join('&');
  return query === '' ? path : `${path}?${query}`;
}
