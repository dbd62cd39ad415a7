import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { handleEcho } from './echo.route';
import { sendJson } from './send-json';
import { handleSse } from './sse.route';
import { createEchoSockets, GOING_AWAY } from './websocket-echo';

/** The example app's server (not listening) and a way to end its long-lived streams. */
export interface ExampleApp {
  server: Server;
  /** Ends SSE streams and closes WebSockets with 1001 so `server.close()` can finish. */
  endStreams(): void;
}

/**
 * An ordinary HTTP app for the sandbox: `GET /healthz`, `/echo`, `GET /sse` and a WebSocket echo at
 * `/ws`. Nothing in it knows about the platform that runs it.
 */
export function createExampleApp(): ExampleApp {
  const closers = new Set<() => void>();
  const track = (
    closer: (() => void) | undefined,
    emitter: { once(event: 'close', fn: () => void): unknown },
  ) => {
    if (!closer) return;
    closers.add(closer);
    emitter.once('close', () => closers.delete(closer));
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://app.invalid');
    if (url.pathname === '/healthz' && req.method === 'GET') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/echo') return handleEcho(req, res);
    if (url.pathname === '/sse' && req.method === 'GET') return track(handleSse(req, res, url), res);
    sendJson(res, 404, { error: { code: 'not_found', message: 'no such route' } });
  };

  const sockets = createEchoSockets();
  const server = createServer({ keepAliveTimeout: 5_000 }, onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://app.invalid').pathname !== '/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.accept(req, socket, head);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  return {
    server,
    endStreams() {
      for (const close of [...closers]) close();
      sockets.closeAll(GOING_AWAY);
      server.closeIdleConnections();
    },
  };
}
