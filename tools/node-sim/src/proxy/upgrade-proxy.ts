import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { NodeErrorMessage } from '@sandbox/protocol';
import { fail } from '../http/respond';
import { responseHeaders } from './forward-headers';
import type { UpstreamFailureListener } from './http-proxy';
import type { UpstreamRequest, UpstreamSettings } from './upstream';
import { openUpstream } from './upstream';

/** The raw client connection of an upgrade request (WebSocket). */
export interface UpgradeSocket {
  readonly socket: Duplex;
  readonly head: Buffer;
}

function switchingProtocols(incoming: IncomingMessage): string {
  const lines = [`HTTP/1.1 101 ${incoming.statusMessage ?? 'Switching Protocols'}`];
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Proxies a protocol upgrade like Go's ReverseProxy: the request goes to the runner with
 * `Connection: Upgrade`; a 101 answer splices the two connections byte for byte, anything else is
 * relayed as a normal response. Releasing the session closes both sides.
 */
export function proxyUpgrade(
  req: IncomingMessage,
  res: ServerResponse,
  client: UpgradeSocket,
  upstream: UpstreamRequest,
  settings: UpstreamSettings,
  onFailure: UpstreamFailureListener,
): void {
  let outbound: ReturnType<typeof openUpstream>;
  let upstreamSocket: Duplex | undefined;
  const cut = (): void => {
    outbound?.destroy();
    upstreamSocket?.destroy();
    if (upstreamSocket || res.headersSent) client.socket.destroy();
    else fail(res, 502, NodeErrorMessage.RunnerDestinationUnavailable);
  };
  try {
    outbound = openUpstream(req, upstream, settings, 'dedicated');
  } catch (error) {
    onFailure(upstream, error);
    return fail(res, 502, NodeErrorMessage.RunnerDestinationUnavailable);
  }
  if (upstream.signal.aborted) return cut();
  upstream.signal.addEventListener('abort', cut, { once: true });
  client.socket.once('close', () => {
    upstream.signal.removeEventListener('abort', cut);
    outbound.destroy();
    upstreamSocket?.destroy();
  });
  outbound.once('error', (error) => {
    if (upstream.signal.aborted) return;
    if (!upstreamSocket && !res.headersSent) {
      onFailure(upstream, error);
      fail(res, 502, NodeErrorMessage.RunnerDestinationUnavailable);
    } else client.socket.destroy();
  });
  outbound.once('response', (incoming) => {
    res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, responseHeaders(incoming).flat());
    incoming.pipe(res);
  });
  outbound.once('upgrade', (incoming, socket, upgradeHead) => {
    upstreamSocket = socket;
    client.socket.write(switchingProtocols(incoming));
    if (upgradeHead.length > 0) client.socket.write(upgradeHead);
    if (client.head.length > 0) socket.write(client.head);
    socket.pipe(client.socket);
    client.socket.pipe(socket);
    socket.once('close', () => client.socket.destroy());
    socket.once('error', () => client.socket.destroy());
    client.socket.once('error', () => socket.destroy());
  });
  outbound.end();
}
