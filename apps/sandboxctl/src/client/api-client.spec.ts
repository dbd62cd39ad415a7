import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '@sandbox/testing';
import { readTokenFile } from '../config';
import { CliError, ServiceError, UnreachableError, UsageError } from '../cli/errors';
import { createApiClient } from './api-client';
import { instanceManagerRoutes as im } from './instance-manager.routes';

const CANARY = 'canary-token-6f1d2c9a8b7e';
let server: Server;
let url = '';
let dir = '';
const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{"apps":[]}' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandboxctl-client-'));
  writeFileSync(join(dir, 'token'), `${CANARY}\n`);
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
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
