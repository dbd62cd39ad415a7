import { afterEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from 'node:http';
import { boundPort, closeServer, listen } from './listen';

let server: Server | undefined;
const agents: Agent[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  if (server?.listening) {
    server.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
  server = undefined;
});

/** An app whose `/slow` answers only when the test releases it. */
function slowApp() {
  const releases: (() => void)[] = [];
  const app = express();
  app.get('/fast', (_req, res) => {
    res.send('fast');
  });
  app.get('/slow', async (_req, res) => {
    await new Promise<void>((resolve) => releases.push(resolve));
    res.send('slow');
  });
  return { app, releases };
}

/** GET over a keep-alive agent; resolves with status, body and whether the server asked to close. */
function get(port: number, path: string, agent: Agent) {
  return new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

function keepAliveAgent(): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  agents.push(agent);
  return agent;
}

describe('listen and closeServer', () => {
  it('listens on 127.0.0.1 and rejects when the port is taken', async () => {
    server = await listen(express(), { port: 0 });
    expect(server.address()).toMatchObject({ address: '127.0.0.1' });
    await expect(listen(express(), { port: boundPort(server) })).rejects.toThrow('EADDRINUSE');
  });

  it('stops accepting, closes idle keep-alive sockets and waits for in-flight requests', async () => {
    const { app, releases } = slowApp();
    server = await listen(app, { port: 0 });
    const port = boundPort(server);
    const serverSockets: Socket[] = [];
    server.on('connection', (socket: Socket) => serverSockets.push(socket));
    await get(port, '/fast', keepAliveAgent());
    const idle = serverSockets[0];
    const idleClosed = idle ? once(idle, 'close') : Promise.reject(new Error('no connection'));

    const inFlight = get(port, '/slow', keepAliveAgent());
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));

    let closed = false;
    const closing = closeServer(server).then(() => (closed = true));
    await expect(get(port, '/fast', keepAliveAgent())).rejects.toThrow('ECONNREFUSED');
    // Resolves only if the server closed the idle keep-alive connection (the test times out otherwise).
    await idleClosed;
    expect(closed).toBe(false);
    expect(serverSockets[1]?.destroyed).toBe(false);

    releases[0]?.();
    expect(await inFlight).toMatchObject({ status: 200, body: 'slow' });
    await closing;
    expect(closed).toBe(true);
  });

  it('cuts connections still open after forceAfterMs', async () => {
    const { app, releases } = slowApp();
    server = await listen(app, { port: 0 });
    const inFlight = get(boundPort(server), '/slow', keepAliveAgent());
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await closeServer(server, { forceAfterMs: 20 });
    await expect(inFlight).rejects.toThrow();
  });
});
