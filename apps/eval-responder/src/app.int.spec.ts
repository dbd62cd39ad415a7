import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkShares, Keystream, KeystreamChecker } from '@sandbox/evaluation-report';
import { HashChallengeResponseSchema, UploadResultSchema } from '@sandbox/protocol';
import { boundPort, createLogger, listen } from '@sandbox/service-kit';
import { createResponder, RESPONDER_SERVER_OPTIONS } from './app';
import { loadConfig } from './config';

const seed = 'c3'.repeat(32);
let server: Server;
let base: string;

beforeAll(async () => {
  const logger = createLogger({ svc: 'eval-responder', level: 'silent' });
  server = await listen(createResponder({ logger }), { port: 0, serverOptions: RESPONDER_SERVER_OPTIONS });
  base = `http://127.0.0.1:${boundPort(server)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('eval-responder', () => {
  it('answers the zero-work echo and health', async () => {
    const echo = await fetch(`${base}/v1/echo`);
    expect([echo.status, await echo.text()]).toEqual([204, '']);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('streams exactly the seed keystream it was asked for', async () => {
    const reply = await post('/v1/download', { seed, bytes: 1_000_003 });
    expect(reply.headers.get('content-length')).toBe('1000003');
    const body = Buffer.from(await reply.arrayBuffer());
    const checker = new KeystreamChecker(Buffer.from(seed, 'hex'), 'download');
    expect([body.length, checker.check(body)]).toEqual([1_000_003, true]);
  });

  it('counts and digests an upload', async () => {
    const bytes = new Keystream(Buffer.from(seed, 'hex'), 'upload').next(777_777);
    const reply = await fetch(`${base}/v1/upload`, { method: 'POST', body: bytes });
    expect(UploadResultSchema.parse(await reply.json())).toEqual({
      bytes: 777_777,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  });

  it('finds shares bound to the seed and the Livepeer session id', async () => {
    const reply = await post(
      '/v1/hash',
      { seed, difficultyBits: 6, shares: 40 },
      { 'Livepeer-Session-Id': 'sess-1' },
    );
    const body = HashChallengeResponseSchema.parse(await reply.json());
    expect(body.sessionId).toBe('sess-1');
    expect(checkShares(Buffer.from(seed, 'hex'), 'sess-1', 6, body.counters).valid).toBe(40);
  });

  it.each<[string, string, unknown, Record<string, string>, number]>([
    ['a hash request without a session', '/v1/hash', { seed, difficultyBits: 6, shares: 1 }, {}, 400],
    ['a short seed', '/v1/download', { seed: 'ab', bytes: 1 }, {}, 400],
    ['an unknown field', '/v1/download', { seed, bytes: 1, extra: 1 }, {}, 400],
    [
      'too many shares',
      '/v1/hash',
      { seed, difficultyBits: 6, shares: 10_001 },
      { 'Livepeer-Session-Id': 's' },
      400,
    ],
  ])('refuses %s without echoing the body', async (_name, path, body, headers, status) => {
    const reply = await post(path, body, headers);
    const text = await reply.text();
    expect(reply.status).toBe(status);
    expect(text).not.toContain(seed);
  });

  it('reads where to listen, logs and shutdown, and no key, token or credential', () => {
    expect(loadConfig({})).toEqual({
      PORT: 8080,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      SHUTDOWN_TIMEOUT_MS: 5_000,
      DRAIN_DELAY_MS: 0,
    });
    expect(() => loadConfig({ PORT: '0' })).toThrow();
  });
});
