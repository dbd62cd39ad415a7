import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';

/** What the app saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A test app behind the simulator: echoes requests and offers streaming, hanging and WebSocket paths. */
export interface RunnerApp {
  readonly url: string;
  /** `127.0.0.1:<port>`, the grant the simulator needs to reach it. */
  readonly grant: string;
  readonly seen: SeenRequest[];
  /** Open server-side WebSocket connections. */
  readonly sockets: Set<WebSocket>;
  /** Responses still open (SSE streams and held requests). */
  readonly open: Set<ServerResponse>;
  close(): Promise<void>;
}

function route(app: RunnerApp, req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  app.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
  if (path.endsWith('/sse')) {
    app.open.add(res);
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    let n = 0;
    const timer = setInterval(() => res.write(`data: ${n++}\n\n`), 20);
    res.on('close', () => {
      clearInterval(timer);
      app.open.delete(res);
    });
    return;
  }
  if (path.endsWith('/hold')) {
    app.open.add(res);
    res.on('close', () => app.open.delete(res));
    return;
  }
  const status = /\/status\/(\d{3})$/u.exec(path)?.[1];
  res.writeHead(status ? Number(status) : 200, { 'Content-Type': 'application/json', 'X-App': 'echo' });
  res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
}

/** Starts the app on 127.0.0.1 with a free port. */
export async function startRunnerApp(): Promise<RunnerApp> {
  const server: Server = createServer();
  const wss = new WebSocketServer({ server });
  const app: RunnerApp = {
    url: '',
    grant: '',
    seen: [],
    sockets: new Set(),
    open: new Set(),
    close: () =>
      new Promise((resolve) => {
        for (const socket of app.sockets) socket.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => route(app, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  wss.on('connection', (socket, req) => {
    app.sockets.add(socket);
    app.seen.push({ method: 'GET', url: req.url ?? '', headers: req.headers, body: '' });
    socket.on('message', (data) => socket.send(`echo:${String(data)}`));
    socket.on('close', () => app.sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(app, { url: `http://127.0.0.1:${port}`, grant: `127.0.0.1:${port}` });
}
