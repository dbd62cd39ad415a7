import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '@sandbox/testing';
import { readTokenFile } from '../config';
import { CliError, ServiceError, UnreachableError, UsageError } from '../cli/errors';
import { createApiClient } from './api-client';
import { instanceManagerRoutes as im } from '@sandbox/protocol';

const CANARY = 'canary-token-6f1d2c9a8b7e';
const EXAMPLE_SPEC = {
  image: 'localhost/example:1',
  port: 8080,
  mode: 'persistent',
  healthCheck: { type: 'http', path: '/healthz' },
  resources: { cpu: '500m', memory: '256Mi' },
  instances: { kind: 'single-session', warmPool: 1, max: 2 },
} as const;
let server: Server;
let url = '';
let dir = '';
const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{"apps":[]}' };
/** How many of the next requests the server answers by closing the connection. */
let drops = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandboxctl-client-'));
  writeFileSync(join(dir, 'token'), `${CANARY}\n`);
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
      if (drops > 0) {
        drops -= 1;
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  const port = await findFreePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const client = (tokenFile?: string) =>
  createApiClient({
    endpoints: { 'instance-manager': { url, ...(tokenFile ? { tokenFile } : {}) } },
    readTokenFile,
  });

describe('createApiClient', () => {
  it('sends the bearer token from the token file, without its trailing newline', async () => {
    answer = { status: 200, body: '{"apps":[]}' };
    await expect(client(join(dir, 'token')).call(im.listApps, {})).resolves.toEqual({ apps: [] });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/apps', authorization: `Bearer ${CANARY}` });
    await client().call(im.listApps, {});
    expect(seen.at(-1)?.authorization).toBeUndefined();
  });

  it('encodes path parameters and the parsed query', async () => {
    answer = { status: 200, body: '{"instances":[]}' };
    await client().call(im.listInstances, { query: { app: 'echo', state: 'ready' } });
    expect(seen.at(-1)?.url).toBe('/v1/instances?app=echo&state=ready');
    await expect(client().call(im.getApp, { params: { app: 'Not A Name' } })).rejects.toThrow(UsageError);
  });

  it("turns the protocol error body into the service's code and message", async () => {
    answer = {
      status: 404,
      body: JSON.stringify({ error: { code: 'not_found', message: 'no app named echo' }, requestId: 'r1' }),
    };
    const error = await client(join(dir, 'token'))
      .call(im.getApp, { params: { app: 'echo' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toBe(
      'instance-manager refused (404 not_found): no app named echo',
    );
    expect((error as ServiceError).message).not.toContain(CANARY);
  });

  it('says which token was sent (never the token) when the service refuses it', async () => {
    const refusal = (status: number, code: string) => {
      answer = { status, body: JSON.stringify({ error: { code, message: 'no' }, requestId: 'r1' }) };
    };
    refusal(401, 'unauthenticated');
    await expect(client().call(im.listApps, {})).rejects.toThrow(
      /^instance-manager refused \(401 unauthenticated\): no\n {2}hint: no token was sent: set tokenFile/,
    );
    const tokenFile = join(dir, 'token');
    const withToken = createApiClient({
      endpoints: { 'instance-manager': { url, tokenFile, tokenSource: 'SANDBOXCTL_TOKEN_FILE' } },
      readTokenFile,
    });
    refusal(403, 'forbidden');
    const forbidden = await withToken.call(im.listApps, {}).catch((caught: unknown) => caught);
    expect((forbidden as Error).message).toContain(
      `hint: sent the token of ${tokenFile} (SANDBOXCTL_TOKEN_FILE); this call needs the admin token`,
    );
    expect((forbidden as Error).message).not.toContain(CANARY);
    refusal(421, 'misdirected_request');
    await expect(withToken.call(im.listApps, {})).rejects.toThrow(/does not answer to the host name/);
  });

  it('sends a GET again once when the service closed the connection under it, never a change', async () => {
    answer = { status: 200, body: '{"apps":[]}' };
    drops = 1;
    const before = seen.length;
    await expect(client().call(im.listApps, {})).resolves.toEqual({ apps: [] });
    expect(seen.length - before).toBe(2);
    drops = 1;
    const put = client().call(im.putApp, { params: { app: 'echo' }, body: EXAMPLE_SPEC });
    await expect(put).rejects.toThrow(UnreachableError);
    expect(seen.length - before).toBe(3);
    drops = 2;
    await expect(client().call(im.listApps, {})).rejects.toThrow(/cannot reach instance-manager/);
  });

  it('refuses an answer that does not match the protocol schema', async () => {
    answer = { status: 200, body: '{"apps":[{"name":"x"}]}' };
    await expect(client().call(im.listApps, {})).rejects.toThrow(/does not understand/);
    answer = { status: 502, body: '<html>' };
    await expect(client().call(im.listApps, {})).rejects.toThrow(CliError);
  });

  it('says which service could not be reached, and how to point at it', async () => {
    const port = await findFreePort();
    const unreachable = createApiClient({
      endpoints: { 'instance-manager': { url: `http://127.0.0.1:${port}` } },
      readTokenFile,
    });
    const error = await unreachable.call(im.listApps, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as Error).message).toContain(
      `cannot reach instance-manager at http://127.0.0.1:${port}: connection refused`,
    );
    expect((error as Error).message).toContain('SANDBOXCTL_INSTANCE_MANAGER_URL');
  });

  it('names a missing token file without reading anything else', async () => {
    await expect(client(join(dir, 'missing')).call(im.listApps, {})).rejects.toThrow(
      `cannot read token file ${join(dir, 'missing')}: ENOENT`,
    );
  });
});
