import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { jsonLog } from './log';
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
 * The evaluation responder's server (not listening): challenge routes a verifier measures through Node.
 * It holds no key, token or credential; everything it computes derives from the request.
 */
export function createResponder(): Server {
  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://responder.invalid').pathname;
    const handler = ROUTES[`${req.method ?? ''} ${path}`];
    if (!handler) return sendError(res, new RequestError('not_found', 'no such route'));
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      if (error instanceof RequestError) return sendError(res, error);
      if (req.destroyed || res.destroyed) return;
      jsonLog('error', 'request failed', { path, err: error instanceof Error ? error.name : 'error' });
      sendError(res, new RequestError('internal', 'internal error'));
    });
  });
  // Uploads and downloads last as long as the verifier's timers; Node's own timeouts bound them.
  server.requestTimeout = 0;
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}
