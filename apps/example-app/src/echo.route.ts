import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './send-json';

/** Largest request body echoed; bigger ones get 413. */
export const MAX_ECHO_BYTES = 8 * 1024 * 1024;

/**
 * `/echo`: a request with a body gets the same bytes back with the same content type; one without
 * gets a JSON description of itself (method, URL, headers).
 */
export function handleEcho(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_ECHO_BYTES) tooBig = true;
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (tooBig)
      return sendJson(res, 413, { error: { code: 'payload_too_large', message: 'request body too large' } });
    if (size === 0) return sendJson(res, 200, { method: req.method, url: req.url, headers: req.headers });
    const body = Buffer.concat(chunks);
    res.writeHead(200, {
      'content-type': req.headers['content-type'] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    res.end(body);
  });
}
