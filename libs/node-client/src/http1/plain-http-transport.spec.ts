import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { HttpTimeoutError } from '../http-exchange';
import { createPlainHttpTransport } from './plain-http-transport';
import { InvalidHeaderError, plainTargetOf } from './request-head';
import { HttpProtocolError } from './response-parser';

const listen = async <T extends Server | HttpServer>(server: T): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const closeServer = (server: Server | HttpServer): Promise<unknown> =>
  new Promise((resolve) => server.close(resolve));

describe('createPlainHttpTransport against node:http', () => {
  const transport = createPlainHttpTransport({ maxFreeSockets: 2 });
  const connections = new Set<Socket>();
  let opened = 0;
  let base = '';
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/close') res.setHeader('Connection', 'close');
      if (req.url === '/hang') return;
      const seen = {
        method: req.method,
        url: req.url,
        host: req.headers.host,
        token: req.headers['x-token'],
      };
      if (req.url === '/chunked') res.write(JSON.stringify(seen));
      res.end(req.url === '/chunked' ? '' : JSON.stringify({ ...seen, body }));
    });
  });
  server.on('connection', (socket: Socket) => {
    opened += 1;
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });

  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(async () => {
    transport.close();
    server.closeAllConnections();
    await closeServer(server);
  });

  it('sends method, path, Host, Latin-1 header bytes and a UTF-8 body, and reads the answer', async () => {
    const answer = await transport({
      method: 'POST',
      url: `${base}/runners/heartbeat?x=1`,
      headers: { 'X-Token': 'sécret' },
      body: '{"app":"café ☕"}',
    });
    expect(answer.status).toBe(200);
    expect(answer.header('Content-Type')).toBeUndefined();
    expect(JSON.parse(answer.text)).toEqual({
      method: 'POST',
      url: '/runners/heartbeat?x=1',
      host: base.slice('http://'.length),
      token: 'sécret',
      body: '{"app":"café ☕"}',
    });
  });

  it('reuses one keep-alive connection for calls in turn, and reads chunked answers', async () => {
    const before = opened;
    for (let call = 0; call < 5; call += 1) {
      const answer = await transport({ method: 'GET', url: `${base}/chunked` });
      expect(JSON.parse(answer.text)).toMatchObject({ method: 'GET', url: '/chunked' });
      expect(answer.header('transfer-encoding')).toBe('chunked');
    }
    expect(opened - before).toBeLessThanOrEqual(1);
  });

  it('opens a connection per concurrent call and keeps at most maxFreeSockets idle', async () => {
    await Promise.all(Array.from({ length: 5 }, () => transport({ method: 'GET', url: `${base}/a` })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections.size).toBeLessThanOrEqual(2);
  });

  it('drops a connection the server closes, and the next call opens a new one', async () => {
    await transport({ method: 'GET', url: `${base}/close` });
    const before = opened;
    server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await transport({ method: 'GET', url: `${base}/b` })).status).toBe(200);
    expect(opened - before).toBe(1);
  });

  it('honours timeoutMs and abort, dropping the connection', async () => {
    await expect(transport({ method: 'GET', url: `${base}/hang`, timeoutMs: 30 })).rejects.toBeInstanceOf(
      HttpTimeoutError,
    );
    const stop = new AbortController();
    const pending = transport({ method: 'GET', url: `${base}/hang`, signal: stop.signal });
    setTimeout(() => stop.abort(new Error('stopped')), 20);
    await expect(pending).rejects.toThrow('stopped');
    expect((await transport({ method: 'GET', url: `${base}/c` })).status).toBe(200);
  });

  it('refuses a header that would break the request, naming only the header', async () => {
    const call = transport({ method: 'GET', url: `${base}/d`, headers: { 'X-Token': 'tok\r\nX-Evil: 1' } });
    await expect(call).rejects.toBeInstanceOf(InvalidHeaderError);
    await expect(call).rejects.toThrow('invalid header X-Token');
    await expect(call).rejects.not.toThrow('tok');
  });
});

describe('createPlainHttpTransport against a misbehaving server', () => {
  let reply: (socket: Socket) => void = () => undefined;
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => reply(socket));
  });
  const transport = createPlainHttpTransport({ maxFreeSockets: 4 });
  let base = '';

  beforeAll(async () => {
    base = await listen(server);
  });
  afterEach(() => transport.close());
  afterAll(() => closeServer(server));

  it('rejects a malformed answer with HttpProtocolError and recovers on a new connection', async () => {
    reply = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc');
    await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toBeInstanceOf(HttpProtocolError);
    reply = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport({ method: 'GET', url: `${base}/` })).text).toBe('ok');
  });

  it('reports a close before the answer as a hang-up (ECONNRESET), and a cut body as invalid', async () => {
    reply = (socket) => socket.destroy();
    await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toMatchObject({ code: 'ECONNRESET' });
    reply = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort');
    await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toThrow('before the response ended');
  });

  it('reads an unframed body to the close', async () => {
    reply = (socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nall of it');
    expect((await transport({ method: 'GET', url: `${base}/` })).text).toBe('all of it');
  });

  it('rejects with the system error code when nothing listens', async () => {
    const closed = createServer();
    const url = await listen(closed);
    await closeServer(closed);
    await expect(transport({ method: 'GET', url })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('plainTargetOf', () => {
  it('takes host, port, path and query, and turns userinfo into Basic credentials', () => {
    expect(plainTargetOf('http://user:p%40ss@[::1]:8935/runners/heartbeat?a=1')).toEqual({
      host: '::1',
      port: 8935,
      origin: '[::1]:8935',
      hostHeader: '[::1]:8935',
      path: '/runners/heartbeat?a=1',
      authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    });
    expect(plainTargetOf('http://node.local/')).toMatchObject({ port: 80, hostHeader: 'node.local' });
    expect(() => plainTargetOf('https://node.local/')).toThrow('not an http: URL');
  });
});
