import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpTransport, fetchTransport, HttpTimeoutError } from './http-transport';

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
  });
});
