import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestAccess, waitFor } from '@sandbox/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixture, stopFixture } from '../__fixtures__/fixture-process';
import type { FixtureProcess } from '../__fixtures__/fixture-process';
import { LISTEN_MARKER } from '../__fixtures__/listen-marker';

let fixture: FixtureProcess | undefined;
let dir = '';
const access = createTestAccess();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'service-kit-int-'));
});
afterEach(async () => {
  await stopFixture(fixture);
  fixture = undefined;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  access.cleanup();
});

/** Starts the fixture and waits for its `listening` log line; returns the bound port. */
async function startListening(
  env: Record<string, string>,
): Promise<{ fixture: FixtureProcess; port: number }> {
  const started = startFixture({ FIXTURE_NAME: 'fixture', ...access.env, ...env });
  fixture = started;
  const listening = await waitFor(() => started.records().find((record) => record['msg'] === 'listening'), {
    description: `the fixture to listen (stderr: ${started.stderr()})`,
    timeoutMs: 20_000,
  });
  return { fixture: started, port: Number(listening['port']) };
}

/** The status of `POST /release` sent with the given `Host` header. */
function statusWithHost(port: number, host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/release',
      headers: { ...headers, host },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

async function get(port: number, path: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' } });
}

describe('a service process', () => {
  it('exits 1 on invalid configuration, listing every problem without values and opening no port', async () => {
    const canary = 'canary-env-value-0b6d3e91';
    fixture = startFixture({
      PORT: 'not-a-port',
      LOG_LEVEL: 'loud',
      SHUTDOWN_TIMEOUT_MS: canary,
      NODE_ENV: canary,
    });
    expect(await fixture.exited).toBe(1);
    const lines = fixture.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0] ?? '') as { msg: string; issues: { path: string; message: string }[] };
    expect(report.msg).toBe('invalid configuration');
    expect(report.issues.map((issue) => issue.path).sort()).toEqual([
      'ADMIN_TOKEN_FILE',
      'FIXTURE_NAME',
      'LOG_LEVEL',
      'NODE_ENV',
      'PORT',
      'READ_TOKEN_FILE',
      'SHUTDOWN_TIMEOUT_MS',
    ]);
    expect(fixture.stderr() + fixture.stdout()).not.toContain(canary);
    expect(fixture.stderr()).not.toContain(LISTEN_MARKER);
    expect(fixture.stdout()).toBe('');
  });

  it('opens its port with a valid configuration (the listen spy sees it)', async () => {
    const { fixture: started, port } = await startListening({});
    expect(started.stderr()).toContain(LISTEN_MARKER);
    expect((await get(port, '/healthz')).status).toBe(200);
  });

  it('turns readiness 503 on SIGTERM while the port still accepts, then closes it and exits 0', async () => {
    const { fixture: started, port } = await startListening({ FIXTURE_HOLD_SHUTDOWN: 'true' });
    await waitFor(async () => (await get(port, '/readyz')).status === 200, { description: 'readiness 200' });
    started.signal('SIGTERM');
    const notReady = await waitFor(
      async () => {
        const res = await get(port, '/readyz');
        return res.status === 503 ? res : undefined;
      },
      { description: '/readyz to answer 503' },
    );
    expect(await notReady.json()).toEqual({ status: 'stopping', checks: [] });
    // The listener is still open: new connections are served until the readiness phase ends.
    expect((await get(port, '/healthz')).status).toBe(200);
    const released = await fetch(`http://127.0.0.1:${port}/release`, {
      method: 'POST',
      headers: { connection: 'close', ...access.headers('admin') },
    });
    expect(released.status).toBe(200);
    expect(await started.exited).toBe(0);
    await expect(get(port, '/healthz')).rejects.toThrow();
    const lifecycle = ['signal received', 'shutdown started', 'shutdown hook done', 'shutdown complete'];
    const events = started
      .records()
      .filter((record) => lifecycle.includes(String(record['msg'])))
      .map((record) => [record['msg'], record['hook']].filter(Boolean).join(':'));
    expect(events).toEqual([
      'signal received',
      'shutdown started',
      'shutdown hook done:hold-for-test',
      'shutdown hook done:http-server',
      'shutdown complete',
    ]);
  });

  it('exits 1 when a shutdown hook hangs past the hard timeout', async () => {
    const { fixture: started } = await startListening({
      FIXTURE_HANG_WORKERS: 'true',
      SHUTDOWN_TIMEOUT_MS: '300',
    });
    started.signal('SIGTERM');
    expect(await started.exited).toBe(1);
    expect(started.records()).toContainEqual(
      expect.objectContaining({ level: 'fatal', msg: 'shutdown timed out' }),
    );
    expect(started.records().some((record) => record['msg'] === 'shutdown complete')).toBe(false);
  });

  it('never writes a secret read from a file, however it is logged', async () => {
    const canary = 'canary-bootstrap-8c2f71d4e5';
    const secretFile = join(dir, 'bootstrap-secret');
    writeFileSync(secretFile, canary);
    const { fixture: started } = await startListening({
      FIXTURE_CANARY_FILE: secretFile,
      NODE_ENV: 'development',
    });
    started.signal('SIGTERM');
    expect(await started.exited).toBe(0);
    const messages = started.records().map((record) => record['msg']);
    expect(messages).toEqual(
      expect.arrayContaining([
        'canary as a field at depth',
        'canary inside a string field',
        'canary [secret] inside the message',
        'canary inside an error',
      ]),
    );
    expect(started.stdout() + started.stderr()).not.toContain(canary);
  });

  it('guards its API with the token files, leaves the probes open and never logs a token', async () => {
    const { fixture: started, port } = await startListening({});
    const call = (method: string, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}/release`, { method, headers: { connection: 'close', ...headers } });
    expect((await call('POST')).status).toBe(401);
    expect((await call('POST', access.headers('wrong'))).status).toBe(401);
    expect((await call('POST', access.headers('read'))).status).toBe(403);
    expect((await call('GET', access.headers('read'))).status).toBe(404);
    // fetch cannot set Host (a forbidden header), so this one goes through node:http.
    expect(await statusWithHost(port, 'rebound.example', access.headers('admin'))).toBe(421);
    expect(await statusWithHost(port, 'localhost', access.headers('admin'))).toBe(200);
    for (const path of ['/healthz', '/metrics']) expect((await get(port, path)).status).toBe(200);
    started.signal('SIGTERM');
    expect(await started.exited).toBe(0);
    const output = started.stdout() + started.stderr();
    expect(output).toContain('"statusCode":403');
    for (const secret of [access.tokens.admin, access.tokens.read]) expect(output).not.toContain(secret);
  });
});
