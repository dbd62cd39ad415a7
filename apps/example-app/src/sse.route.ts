import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './send-json';

/** Limits of one stream. */
export const SSE_MAX_COUNT = 10_000;
export const SSE_MAX_INTERVAL_MS = 60_000;

function intParam(value: string | null, fallback: number, max: number): number | undefined {
  if (value === null) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) return undefined;
  return Number(value);
}

/**
 * `/sse?count=N&intervalMs=M`: a Server-Sent Events stream of N `tick` events M ms apart (each with
 * its sequence number and the server time), then one `end` event. Returns a function that ends the
 * stream early (for shutdown).
 */
export function handleSse(req: IncomingMessage, res: ServerResponse, url: URL): (() => void) | undefined {
  const count = intParam(url.searchParams.get('count'), 10, SSE_MAX_COUNT);
  const intervalMs = intParam(url.searchParams.get('intervalMs'), 100, SSE_MAX_INTERVAL_MS);
  if (count === undefined || intervalMs === undefined) {
    sendJson(res, 400, {
      error: { code: 'invalid_request', message: 'count and intervalMs must be small non-negative integers' },
    });
    return undefined;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  let seq = 0;
  const finish = () => {
    clearInterval(timer);
    if (!res.writableEnded) res.end('event: end\ndata: {}\n\n');
  };
  const tick = () => {
    if (seq >= count) return finish();
    seq += 1;
    res.write(
      `id: ${seq}\nevent: tick\ndata: ${JSON.stringify({ seq, time: new Date().toISOString() })}\n\n`,
    );
  };
  const timer = setInterval(tick, Math.max(1, intervalMs));
  req.on('close', () => clearInterval(timer));
  tick();
  return finish;
}
