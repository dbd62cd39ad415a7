import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { httpError } from './respond';

/**
 * Node's metrics listener: `/healthz` → `ok`, `/readyz` → `ready` (only "the listener is up"),
 * `/metrics` → `livepeer_runners` and `livepeer_sessions`.
 */
export function createMetricsServer(counts: () => { runners: number; sessions: number }): Server {
  return createServer({ maxHeaderSize: 1 << 16 }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const known = path === '/healthz' || path === '/readyz' || path === '/metrics';
    if (!known) return httpError(res, 404, '404 page not found');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return httpError(res, 405, 'Method Not Allowed');
    }
    if (path === '/metrics') {
      const { runners, sessions } = counts();
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      return void res.end(`livepeer_runners ${runners}\nlivepeer_sessions ${sessions}\n`);
    }
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(path === '/healthz' ? 'ok\n' : 'ready\n');
  });
}
