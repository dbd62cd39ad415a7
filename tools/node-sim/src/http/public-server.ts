import type { IncomingMessage } from 'node:http';
import { createServer, ServerResponse } from 'node:http';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { NodeErrorMessage } from '@sandbox/protocol';
import { addClientRoutes } from '../routes/client.routes';
import { addProxyRoutes } from '../routes/proxy.routes';
import { addRunnerRoutes } from '../routes/runner.routes';
import type { SimContext } from '../sim-context';
import { addTrickleRoutes } from '../trickle/trickle-routes';
import { fail } from './respond';
import { Router } from './router';

/** Node's admission pools: control requests and streaming requests never starve each other. */
const CONTROL_SLOTS = 64;
const STREAM_SLOTS = 256;

function isStreaming(path: string): boolean {
  return (
    path.startsWith('/ai/trickle/') ||
    path.startsWith('/proxy/') ||
    path.startsWith('/run/') ||
    path.endsWith('/app') ||
    path.includes('/app/')
  );
}

function basePath(url: string): string {
  return new URL(url).pathname.replace(/\/+$/u, '');
}

export function buildRouter(ctx: SimContext): Router {
  const router = new Router();
  addRunnerRoutes(router, ctx);
  addClientRoutes(router, ctx);
  addProxyRoutes(router, ctx);
  addTrickleRoutes(router, ctx.trickle, (name) => ctx.channels.forget(name));
  ctx.payments?.addRoutes(router);
  return router;
}

/** An HTTP server with Node's limits (1 MiB headers, 90 s idle) and no request timeout for streams. */
export function createHttpServer(): Server {
  return createServer({ maxHeaderSize: 1 << 20, requestTimeout: 0, keepAliveTimeout: 90_000 });
}

/**
 * Serves the public routes on `server`: strips the service or runner base path, applies admission
 * control (503 `server busy`), and serves upgrades (WebSocket) through the same routes.
 */
export function attachPublicRoutes(server: Server, ctx: SimContext): void {
  const router = buildRouter(ctx);
  const bases = [basePath(ctx.state.config.serviceUrl), basePath(ctx.state.config.runnerServiceUrl)];
  const inUse = { control: 0, stream: 0 };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const [rawPath = '/', query] = (req.url ?? '/').split(/\?(.*)/su);
    let path = rawPath;
    const base = bases
      .filter((candidate) => candidate !== '' && path.startsWith(`${candidate}/`))
      .sort((a, b) => b.length - a.length)[0];
    if (base === undefined && bases.every((candidate) => candidate !== ''))
      return fail(res, 404, NodeErrorMessage.RouteNotFound);
    if (base !== undefined) {
      path = path.slice(base.length);
      req.url = query === undefined ? path : `${path}?${query}`;
    }
    const pool = isStreaming(path) ? 'stream' : 'control';
    if (inUse[pool] >= (pool === 'stream' ? STREAM_SLOTS : CONTROL_SLOTS))
      return fail(res, 503, NodeErrorMessage.ServerBusy);
    inUse[pool] += 1;
    let released = false;
    const release = (): void => {
      if (!released) inUse[pool] -= 1;
      released = true;
    };
    res.once('close', release);
    router
      .dispatch(req, res, path)
      .catch((error: unknown) => {
        ctx.logger.error({ err: error, path }, 'request failed');
        if (!res.headersSent) fail(res, 500, 'internal error');
        else res.destroy();
      })
      .finally(release);
  };

  server.on('request', handle);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A response bound to the raw socket lets every route answer an upgrade request normally.
    const res = new ServerResponse(req);
    res.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
    res.once('finish', () => socket.end());
    socket.on('error', () => socket.destroy());
    ctx.upgrades.set(req, { socket, head });
    handle(req, res);
  });
}
