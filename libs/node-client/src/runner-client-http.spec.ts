import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { NodeRequestError } from './errors';
import { createHttpTransport } from './http-transport';
import { createRunnerClient } from './runner-client';

// The runner client over the real transport (undici) against a node:http server standing in for
// Node: what the adapter sees of keep-alive, a server dropping connections, deadlines and bad answers.

const registration = {
  runner_id: 'inst-1',
  orchestrator: 'http://node.internal:8935',
  heartbeat_interval: '5s',
  heartbeat_ttl: '30s',
  session_ids: [],
};
const body = { runner_id: 'inst-1', runner_url: 'http://10.0.0.1:8080', app: 'echo', capacity: 2 };

type Answer = (req: IncomingMessage, res: ServerResponse) => void;
const steady: Answer = (_req, res) => {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(registration));
};

async function waitUntil(done: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('runner client over createHttpTransport', () => {
  const transport = createHttpTransport({ keepAliveTimeoutMs: 10_000 });
  const client = createRunnerClient({ transport });
  const sockets = new Set<Socket>();
  let answer: Answer = steady;
  let opened = 0;
  let baseUrl = '';
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (socket: Socket) => {
    opened += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const beat = (timeoutMs = 2_000) => client.heartbeat({ baseUrl, credential: 'secret', body, timeoutMs });
  const failure = (timeoutMs?: number) => beat(timeoutMs).catch((error: unknown) => error);

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    answer = steady;
  });
  afterAll(async () => {
    transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends heartbeats in turn over kept-alive connections', async () => {
    await beat();
    const before = opened;
    for (let call = 0; call < 20; call += 1) {
      expect((await beat()).response.runner_id).toBe('inst-1');
    }
    // A call sent as the previous answer ends may find that connection not yet marked free and open
    // a second one; from then on the two are reused.
    expect(opened - before).toBeLessThanOrEqual(1);
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('opens a new connection after the server closes an idle one', async () => {
    await beat();
    const before = opened;
    // What a server does once its keep-alive timeout passes: close the connection between requests.
    server.closeIdleConnections();
    await waitUntil(() => sockets.size === 0);
    // Time for the client to read the close too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await beat()).response.runner_id).toBe('inst-1');
    expect(opened - before).toBe(1);
  });

  it('fails with kind timeout when Node does not answer in time, and the next beat goes through', async () => {
    const held: ServerResponse[] = [];
    answer = (_req, res) => held.push(res);
    const error = await failure(50);
    expect(error).toBeInstanceOf(NodeRequestError);
    expect(error).toMatchObject({ kind: 'timeout', reason: 'no answer within 50 ms', status: undefined });
    answer = steady;
    expect((await beat()).response.runner_id).toBe('inst-1');
    held.forEach((res) => res.destroy());
  });

  it("maps a non-2xx answer to kind http with Node's reason, and keeps the connection", async () => {
    await beat();
    const before = opened;
    answer = (_req, res) => {
      res.statusCode = 503;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: 'orchestrator is draining' }));
    };
    const error = await failure();
    expect(error).toBeInstanceOf(NodeRequestError);
    expect(error).toMatchObject({ kind: 'http', status: 503, reason: 'orchestrator is draining' });
    answer = steady;
    await beat();
    expect(opened).toBe(before);
  });

  it('fails with kind network on a truncated body, naming no secret, and recovers', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '400' });
      res.write('{"runner_id":"inst-1",');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const error = await failure();
    expect(error).toBeInstanceOf(NodeRequestError);
    expect(error).toMatchObject({ kind: 'network', reason: 'request failed (UND_ERR_SOCKET)' });
    expect(String((error as Error).message)).not.toContain('secret');
    answer = steady;
    expect((await beat()).response.runner_id).toBe('inst-1');
  });
});
