import { afterAll, describe, expect, it } from '@jest/globals';
import { adapterApi, openApiDocument, type RunnerView } from '@sandbox/protocol';
import {
  accessPolicy,
  createHealth,
  createLogger,
  createMetrics,
  createSecretScrubber,
} from '@sandbox/service-kit';
import { createTestAccess } from '@sandbox/testing';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../app';
import type { RunnerSource } from './runners.routes';

const view = (instanceId: string, state: RunnerView['state'], message = 'ok'): RunnerView => ({
  instanceId,
  app: 'echo',
  runnerId: instanceId,
  state,
  capacity: 2,
  advertisedCapacity: 2,
  lastBeat: { at: '2025-01-01T00:00:00.000Z', latencyMs: 1.5 },
  heartbeat: { intervalMs: 5_000, ttlMs: 30_000 },
  sessions: [],
  o2r: { connected: true, lastMessageAt: null },
  lastError: { kind: 'http', status: 503, message, at: '2025-01-01T00:00:00.000Z', consecutive: 1 },
  failure: null,
  withdrawal: null,
});

const access = createTestAccess();
const lines: string[] = [];
afterAll(() => access.cleanup());

/** The API with the read token on every request. */
const reader = (server: Express) => request.agent(server).set(access.headers('read'));

function app(views: RunnerView[]) {
  const secrets = createSecretScrubber();
  secrets.register('super-secret-credential');
  const runners: RunnerSource = {
    list: (query) => views.filter((entry) => query.state === undefined || entry.state === query.state),
    get: (id) => views.find((entry) => entry.instanceId === id),
    drainStatus: { mode: 'open', drainId: null, since: null },
  };
  return createApp({
    access: accessPolicy({ tokens: access.tokens, serviceName: 'adapter' }),
    logger: createLogger({
      svc: 'adapter',
      level: 'info',
      destination: { write: (line) => void lines.push(line) },
    }),
    health: createHealth(),
    metrics: createMetrics({ svc: 'adapter', collectDefaults: false }),
    secrets,
    runners,
  });
}

describe('runners routes', () => {
  it('lists registrations, filtered by state, and shows one', async () => {
    const server = app([view('a-1', 'registered'), view('b-1', 'failed')]);
    const all = await reader(server).get('/v1/runners').expect(200);
    expect(all.body.runners.map((entry: RunnerView) => entry.instanceId)).toEqual(['a-1', 'b-1']);
    expect(all.body.drain).toEqual({ mode: 'open', drainId: null, since: null });
    const failed = await reader(server).get('/v1/runners?state=failed').expect(200);
    expect(failed.body.runners).toHaveLength(1);
    await reader(server).get('/v1/runners/a-1').expect(200);
    const missing = await reader(server).get('/v1/runners/zz-9').expect(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('publishes the OpenAPI document generated from its contracts', async () => {
    const document = await reader(app([])).get('/v1/openapi.json').expect(200);
    expect(document.body).toEqual(openApiDocument(adapterApi));
  });

  it('answers 400 with every issue for bad input', async () => {
    const server = app([]);
    const bad = await reader(server).get('/v1/runners?state=nope&extra=1').expect(400);
    expect(bad.body.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'query',
      'query.state',
    ]);
    await reader(server).get('/v1/runners/UPPER_case').expect(400);
  });

  it('never sends a registered secret, even one quoted in an error message', async () => {
    const server = app([view('a-1', 'registering', 'echoed super-secret-credential')]);
    const response = await reader(server).get('/v1/runners').expect(200);
    expect(response.text).not.toContain('super-secret-credential');
    expect(response.body.runners[0].lastError.message).toBe('echoed [secret]');
  });

  it.each(['/v1/runners', '/v1/runners/a-1'])(
    'GET %s: 401 without or with a wrong token, 200 with the read or the admin token',
    async (path) => {
      const server = app([view('a-1', 'registered')]);
      for (const headers of [{}, access.headers('wrong')]) {
        const refused = await request(server).get(path).set(headers).expect(401);
        expect(refused.body.error.code).toBe('unauthenticated');
      }
      await request(server).get(path).set(access.headers('read')).expect(200);
      await request(server).get(path).set(access.headers('admin')).expect(200);
    },
  );

  it('refuses writes to a read token, a foreign Host to anyone, and never logs a token', async () => {
    const server = app([]);
    const write = await request(server).post('/v1/runners').set(access.headers('read')).expect(403);
    expect(write.body.error.code).toBe('forbidden');
    await request(server).post('/v1/runners').set(access.headers('admin')).expect(404);
    const misdirected = await request(server)
      .get('/v1/runners')
      .set({ ...access.headers('admin'), host: 'rebound.example' })
      .expect(421);
    expect(misdirected.body.error.code).toBe('misdirected_request');
    await request(server).get('/healthz').expect(200);
    await request(server).get('/metrics').expect(200);
    const logged = lines.join('');
    expect(logged).toContain('/v1/runners');
    for (const secret of [access.tokens.admin, access.tokens.read]) expect(logged).not.toContain(secret);
  });
});
