import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHttpTransport } from './http-transport';

async function waitUntil(done: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

// The bounds createHttpTransport keeps: connections per origin and the size of an answer's body.

describe('createHttpTransport limits', () => {
  const transport = createHttpTransport({ maxConnectionsPerOrigin: 2, maxBodyBytes: 1_024 });
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  let mostOpen = 0;
  let base = '';
  const server = createServer((req, res) => {
    if (req.url === '/held') {
      held.push(res);
      return;
    }
    if (req.url === '/declared-large') {
      res.writeHead(200, { 'Content-Length': '4096' });
      res.write('x'.repeat(64));
      return;
    }
    if (req.url === '/chunked-large') {
      for (let chunk = 0; chunk < 8; chunk += 1) res.write('y'.repeat(256));
      res.end();
      return;
    }
    res.end('z'.repeat(1_024));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    mostOpen = Math.max(mostOpen, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    held.forEach((res) => res.destroy());
    transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses options that bound nothing', () => {
    expect(() => createHttpTransport({ maxConnectionsPerOrigin: 0 })).toThrow('maxConnectionsPerOrigin');
    expect(() => createHttpTransport({ maxConnectionsPerOrigin: 1.5 })).toThrow('maxConnectionsPerOrigin');
  });

  it('opens at most maxConnectionsPerOrigin connections; a call past it waits for one', async () => {
    const calls = Array.from({ length: 3 }, () => transport({ method: 'GET', url: `${base}/held` }));
    await waitUntil(() => held.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(held).toHaveLength(2);
    held.splice(0).forEach((res) => res.end('first'));
    await waitUntil(() => held.length === 1);
    expect(held).toHaveLength(1);
    held.splice(0).forEach((res) => res.end('last'));
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => answer.text).sort()).toEqual(['first', 'first', 'last']);
    expect(mostOpen).toBe(2);
  });

  it('a call waiting for a connection still keeps its deadline', async () => {
    const busy = [0, 1].map(() => transport({ method: 'GET', url: `${base}/held` }));
    await waitUntil(() => held.length === 2);
    await expect(transport({ method: 'GET', url: `${base}/ok`, timeoutMs: 50 })).rejects.toThrow(
      'no answer within 50 ms',
    );
    held.splice(0).forEach((res) => res.end('done'));
    await Promise.all(busy);
  });

  it('reads a body of exactly maxBodyBytes, and fails a longer one, declared or chunked', async () => {
    expect((await transport({ method: 'GET', url: `${base}/ok` })).text).toHaveLength(1_024);
    for (const path of ['/declared-large', '/chunked-large']) {
      await expect(
        transport({ method: 'GET', url: `${base}${path}`, timeoutMs: 2_000 }),
      ).rejects.toMatchObject({ code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
    }
    expect((await transport({ method: 'GET', url: `${base}/ok` })).status).toBe(200);
  });
});
