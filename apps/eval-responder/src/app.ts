import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';
import type { ServiceLogger } from '@sandbox/service-kit';
import { RequestError, sendError, sendJson } from './http-io';
import { handleDownload } from './routes/download.route';
import { handleHash } from './routes/hash.route';
import { handleUpload } from './routes/upload.route';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** A zero-work answer for round-trip probes: no body to read, nothing to compute. */
const echo: Handler = (_req, res) => {
  res.writeHead(204, { 'cache-control': 'no-store' });
  res.end();
};

const ROUTES: Record<string, Handler> = {
  'GET /healthz': (_req, res) => sendJson(res, 200, { status: 'ok' }),
  'GET /v1/echo': echo,
  'POST /v1/download': handleDownload,
  'POST /v1/upload': handleUpload,
  'POST /v1/hash': handleHash,
};

/**
 * The responder's server options. Uploads and downloads last as long as the verifier's timers, so no
 * request timeout: Node's own timeouts bound them.
 */
export const RESPONDER_SERVER_OPTIONS: ServerOptions = Object.freeze({
  keepAliveTimeout: 30_000,
  requestTimeout: 0,
});

/**
 * The evaluation responder's request handler: challenge routes a verifier measures through Node.
 * It holds no key, token or credential; everything it computes derives from the request. Logs carry
 * the path only, never a body (seeds travel in them).
 */
export function createResponder(deps: { logger: ServiceLogger }): RequestListener {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://responder.invalid').pathname;
    const handler = ROUTES[`${req.method ?? ''} ${path}`];
    if (!handler) return sendError(res, new RequestError('not_found', 'no such route'));
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      if (error instanceof RequestError) return sendError(res, error);
      if (req.destroyed || res.destroyed) return;
      deps.logger.error({ path, errorName: error instanceof Error ? error.name : 'error' }, 'request failed');
      sendError(res, new RequestError('internal', 'internal error'));
    });
  };
}
