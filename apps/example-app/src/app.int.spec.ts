import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createExampleApp } from './app';
import { MAX_MESSAGE_BYTES } from './websocket-echo';

const app = createExampleApp();
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  app.endStreams();
  await new Promise((resolve) => app.server.close(resolve));
});

function wsEcho(messages: (string | Buffer)[]): Promise<{ data: Buffer; binary: boolean }[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${base}/ws`);
    const received: { data: Buffer; binary: boolean }[] = [];
    socket.on('open', () => messages.forEach((message) => socket.send(message)));
    socket.on('message', (data: Buffer, binary: boolean) => {
      received.push({ data, binary });
      if (received.length === messages.length) socket.close(1000);
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('example app', () => {
  it('answers /healthz and 404s unknown routes', async () => {
    const health = await fetch(`http://${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`http://${base}/nope`)).status).toBe(404);
  });

  it('echoes a body with its content type, and describes a request without one', async () => {
    const echoed = await fetch(`http://${base}/echo`, {
      method: 'POST',
      body: 'ping',
      headers: { 'content-type': 'text/plain' },
    });
    expect(echoed.headers.get('content-type')).toBe('text/plain');
    expect(await echoed.text()).toBe('ping');
    const described = (await (await fetch(`http://${base}/echo?q=1`)).json()) as {
      method: string;
      url: string;
    };
    expect(described).toMatchObject({ method: 'GET', url: '/echo?q=1' });
  });

  it('streams server-sent events and ends the stream', async () => {
    const response = await fetch(`http://${base}/sse?count=3&intervalMs=10`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const ticks = text.split('\n').filter((line) => line.startsWith('data: {"seq"'));
    expect(ticks.map((line) => (JSON.parse(line.slice(6)) as { seq: number }).seq)).toEqual([1, 2, 3]);
    expect(text).toContain('event: end');
    expect((await fetch(`http://${base}/sse?count=abc`)).status).toBe(400);
  });

  it('echoes WebSocket text and binary messages', async () => {
    const big = Buffer.alloc(100_000, 3);
    const received = await wsEcho(['hello', big]);
    expect(received[0]).toEqual({ data: Buffer.from('hello'), binary: false });
    expect(received[1]?.binary).toBe(true);
    expect(received[1]?.data.equals(big)).toBe(true);
  });

  it('closes a WebSocket with 1009 when a message exceeds the limit', async () => {
    const socket = new WebSocket(`ws://${base}/ws`);
    const code = await new Promise<number>((resolve, reject) => {
      socket.on('open', () => socket.send(Buffer.alloc(MAX_MESSAGE_BYTES + 1)));
      socket.on('close', (closeCode: number) => resolve(closeCode));
      socket.on('error', reject);
    });
    expect(code).toBe(1009);
  });

  it('refuses a plain request to the WebSocket path', async () => {
    const response = await fetch(`http://${base}/ws`);
    expect(response.status).toBe(404);
  });
});
