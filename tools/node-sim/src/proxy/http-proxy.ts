import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeErrorMessage } from '@sandbox/protocol';
import { fail } from '../http/respond';
import { responseHeaders } from './forward-headers';
import type { UpstreamRequest, UpstreamSettings } from './upstream';
import { openUpstream } from './upstream';

/** Called when the runner could not be reached (Node logs `runner proxy failed`). */
export type UpstreamFailureListener = (upstream: UpstreamRequest, error: unknown) => void;

/** Go's ReverseProxy answer to a failed round trip, or an abrupt close once the response began. */
function abandon(res: ServerResponse): void {
  if (res.headersSent) res.destroy();
  else fail(res, 502, NodeErrorMessage.RunnerDestinationUnavailable);
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Proxies one HTTP request to a runner like Node: method, headers, query and body preserved,
 * the response streamed back as it arrives (SSE included), 502 when the runner cannot be dialed,
 * and the exchange cut the moment the session is released.
 */
export function proxyHttp(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: UpstreamRequest,
  settings: UpstreamSettings,
  onFailure: UpstreamFailureListener,
): Promise<void> {
  return new Promise((resolve) => {
    let outbound: ReturnType<typeof openUpstream>;
    const finish = (): void => {
      upstream.signal.removeEventListener('abort', onRelease);
      resolve();
    };
    const onRelease = (): void => {
      outbound?.destroy();
      abandon(res);
      finish();
    };
    try {
      outbound = openUpstream(req, upstream, settings, 'pooled');
    } catch (error) {
      onFailure(upstream, error);
      fail(res, 502, NodeErrorMessage.RunnerDestinationUnavailable);
      return finish();
    }
    if (upstream.signal.aborted) return onRelease();
    upstream.signal.addEventListener('abort', onRelease, { once: true });
    res.once('close', () => {
      if (!res.writableFinished) outbound.destroy();
      finish();
    });
    outbound.once('error', (error) => {
      if (upstream.signal.aborted) return;
      if (!res.headersSent) onFailure(upstream, error);
      abandon(res);
      finish();
    });
    outbound.once('response', (incoming) => {
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, responseHeaders(incoming).flat());
      res.flushHeaders();
      incoming.pipe(res);
      incoming.once('aborted', () => res.destroy());
      incoming.once('error', () => res.destroy());
    });
    if (hasBody(req)) req.pipe(outbound);
    else outbound.end();
  });
}
