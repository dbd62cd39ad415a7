import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { errors } from 'undici';
import { createHttpTransport, fetchTransport, HttpTimeoutError } from './http-transport';

async function waitUntil(done: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('createHttpTransport', () => {
  const transport = createHttpTransport();
  const held: ServerResponse[] = [];
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/hang') {
        held.push(res);
        return;
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      req.on('end', () => {
        res.setHeader('X-Seen', `${req.method} ${req.url} token=${req.headers['x-token'] ?? ''}`);
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    held.forEach((res) => res.destroy());
    transport.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends method, path, query, headers and body, and reads the answer', async () => {
    const signal = new AbortController().signal;
    const answer = await transport({
      method: 'POST',
      url: `${base}/runners/heartbeat?x=1`,
      headers: { 'X-Token': 'tok' },
      body: '{"a":1}',
      signal,
    });
    expect(answer).toMatchObject({ status: 200, text: '{"a":1}' });
    expect(answer.header('x-seen')).toBe('POST /runners/heartbeat?x=1 token=tok');
    // The same URL again, now from the parsed-target cache.
    const again = await transport({ method: 'GET', url: `${base}/runners/heartbeat?x=1` });
    expect(again.header('X-Seen')).toBe('GET /runners/heartbeat?x=1 token=');
  });

  it('rejects with the signal’s reason when aborted before or during the exchange', async () => {
    const early = new AbortController();
    early.abort(new Error('stopped early'));
    await expect(transport({ method: 'GET', url: `${base}/hang`, signal: early.signal })).rejects.toThrow(
      'stopped early',
    );

    const late = new AbortController();
    const pending = transport({ method: 'GET', url: `${base}/hang`, signal: late.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    late.abort(new Error('stopped late'));
    await expect(pending).rejects.toThrow('stopped late');
  });

  it('rejects with HttpTimeoutError past timeoutMs, and a timely answer is not cut', async () => {
    const hung = transport({ method: 'GET', url: `${base}/hang`, timeoutMs: 30 });
    await expect(hung).rejects.toBeInstanceOf(HttpTimeoutError);
    const answer = await transport({ method: 'POST', url: `${base}/quick`, body: 'x', timeoutMs: 1_000 });
    expect(answer).toMatchObject({ status: 200, text: 'x' });
  });

  it('fetchTransport honours timeoutMs too, and a caller abort stays the caller’s', async () => {
    const viaFetch = fetchTransport((url, init) => fetch(url, init));
    await expect(viaFetch({ method: 'GET', url: `${base}/hang`, timeoutMs: 30 })).rejects.toBeInstanceOf(
      HttpTimeoutError,
    );
    const stop = new AbortController();
    const pending = viaFetch({ method: 'GET', url: `${base}/hang`, signal: stop.signal, timeoutMs: 5_000 });
    stop.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
  });

  it('leaves no listener on the signal once the answer arrived', async () => {
    const controller = new AbortController();
    const answer = await transport({ method: 'GET', url: `${base}/done`, signal: controller.signal });
    expect(answer.status).toBe(200);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const { signal } = controller;
    await expect(transport({ method: 'GET', url: `${base}/hang`, signal, timeoutMs: 20 })).rejects.toThrow();
    await expect(
      transport({ method: 'GET', url: `${base}/done`, signal, headers: { 'X-Token': 'a\nb' } }),
    ).rejects.toThrow('X-Token');
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

const listen = async <T extends NetServer | Server>(server: T): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const closeServer = (server: NetServer | Server): Promise<unknown> =>
  new Promise((resolve) => server.close(resolve));

describe('createHttpTransport against node:http', () => {
  const transport = createHttpTransport({ keepAliveTimeoutMs: 200 });
  const connections = new Set<Socket>();
  let opened = 0;
  let base = '';
  const server = createServer((req, res) => {
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
        authorization: req.headers.authorization,
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

  it('opens a connection per concurrent call and closes idle ones after keepAliveTimeoutMs', async () => {
    const before = opened;
    await Promise.all(
      Array.from({ length: 5 }, () => transport({ method: 'GET', url: `${base}/hang-free` })),
    );
    expect(opened - before).toBeGreaterThanOrEqual(4);
    await waitUntil(() => connections.size === 0);
    expect(connections.size).toBe(0);
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
    const before = opened;
    for (const value of ['tok\r\nX-Evil: 1', 'tok\u2603']) {
      const call = transport({ method: 'GET', url: `${base}/d`, headers: { 'X-Token': value } });
      await expect(call).rejects.toThrow('X-Token');
      await expect(call).rejects.not.toThrow('tok');
    }
    expect(opened).toBe(before);
  });

  it('turns a URL’s userinfo into Basic credentials, unless the call sends its own', async () => {
    const withUser = base.replace('http://', 'http://user:p%40ss@');
    const answer = await transport({ method: 'GET', url: `${withUser}/e` });
    expect(JSON.parse(answer.text)).toMatchObject({
      url: '/e',
      host: base.slice('http://'.length),
      authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    });
    const own = await transport({
      method: 'GET',
      url: `${withUser}/f`,
      headers: { Authorization: 'secret' },
    });
    expect(JSON.parse(own.text)).toMatchObject({ authorization: 'secret' });
  });

  it('refuses a URL that is neither http: nor https:', async () => {
    await expect(transport({ method: 'GET', url: 'ftp://node.local/' })).rejects.toThrow('not an http');
  });
});

describe('createHttpTransport against a misbehaving server', () => {
  let reply: (socket: Socket) => void = () => undefined;
  const server = createNetServer((socket) => {
    socket.on('error', () => undefined);
    socket.on('data', () => reply(socket));
  });
  const transport = createHttpTransport();
  let base = '';

  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(async () => {
    transport.close();
    await closeServer(server);
  });

  it('rejects a malformed answer and recovers on a new connection', async () => {
    reply = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc');
    await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toMatchObject({
      code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    });
    reply = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport({ method: 'GET', url: `${base}/` })).text).toBe('ok');
    for (const malformed of [
      'HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\nContent-Length: 2\n\nok',
    ]) {
      reply = (socket) => socket.write(malformed);
      await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toBeInstanceOf(
        errors.HTTPParserError,
      );
    }
    reply = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport({ method: 'GET', url: `${base}/` })).text).toBe('ok');
  });

  it('rejects a close before the answer, and a cut body', async () => {
    reply = (socket) => socket.destroy();
    await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toMatchObject({
      code: 'UND_ERR_SOCKET',
    });
    reply = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort');
    await expect(transport({ method: 'GET', url: `${base}/` })).rejects.toMatchObject({
      code: 'UND_ERR_SOCKET',
    });
  });

  it('reads an unframed body to the close', async () => {
    reply = (socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nall of it');
    expect((await transport({ method: 'GET', url: `${base}/` })).text).toBe('all of it');
  });

  it('rejects with the system error code when nothing listens', async () => {
    const closed = createNetServer();
    const url = await listen(closed);
    await closeServer(closed);
    await expect(transport({ method: 'GET', url })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
