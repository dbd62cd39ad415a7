import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisConnection } from '@sandbox/queue';
import { accessPolicy, createHealth, createMetrics } from '@sandbox/service-kit';
import { createTestAccess, startRedis, uniquePrefix } from '@sandbox/testing';
import type { RedisFixture } from '@sandbox/testing';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../app';
import { systemClock } from '@sandbox/service-kit';
import { singleSessionSpec } from '../domain/spec-fixtures.fixture';
import { createAppStore } from '../store/app-store';
import { createInstanceStore } from '../store/instance-store';
import { createLogArchive } from '../store/log-archive';
import { FakeHost } from '../test-support/fake-runtime.fixture';

let redis: RedisFixture;
let connection: Redis;
const reconciled: string[] = [];
const access = createTestAccess();

function app() {
  const prefix = uniquePrefix('api');
  const health = createHealth();
  health.markReady();
  return createApp({
    access: accessPolicy({ tokens: access.tokens, serviceName: 'instance-manager' }),
    logger: pino({ level: 'silent' }),
    health,
    metrics: createMetrics({ svc: 'instance-manager', collectDefaults: false }),
    apps: createAppStore({ redis: connection, prefix }),
    store: createInstanceStore({ redis: connection, prefix, retentionMs: 60_000 }),
    logs: createLogArchive({ redis: connection, prefix, retentionMs: 60_000 }),
    driver: new FakeHost().driver(),
    clock: systemClock,
    reconcile: (name) => void reconciled.push(name),
  });
}

/** The API with the admin token on every request. */
const api = () => request.agent(app()).set(access.headers('admin'));

beforeAll(async () => {
  redis = await startRedis();
  connection = createRedisConnection(redis.url, 'producer');
  await new Promise((resolve) => connection.once('ready', resolve));
});
afterAll(async () => {
  connection.disconnect();
  await redis.stop();
  access.cleanup();
});

describe('access to the instance-manager API', () => {
  const routes: [method: 'get' | 'put' | 'delete', path: string, write: boolean][] = [
    ['put', '/v1/apps/demo', true],
    ['get', '/v1/apps', false],
    ['get', '/v1/apps/demo', false],
    ['delete', '/v1/apps/demo', true],
    ['get', '/v1/instances', false],
    ['get', '/v1/instances/i-1', false],
    ['get', '/v1/instances/i-1/logs', false],
    ['get', '/v1/openapi.json', false],
  ];

  it.each(routes)(
    '%s %s: 401 without or with a wrong token, read only for reads, admin for all',
    async (method, path, write) => {
      const target = app();
      const call = (headers: Record<string, string> = {}) =>
        request(target)
          [method](path)
          .set(headers)
          .send(method === 'put' ? singleSessionSpec(0, 1) : undefined);
      for (const headers of [{}, access.headers('wrong'), { authorization: access.tokens.admin }]) {
        const refused = await call(headers).expect(401);
        expect(refused.body.error.code).toBe('unauthenticated');
      }
      const asReader = await call(access.headers('read'));
      if (write) expect([asReader.status, asReader.body.error?.code]).toEqual([403, 'forbidden']);
      else expect(asReader.status).not.toBe(401);
      const asAdmin = await call(access.headers('admin'));
      expect([401, 403]).not.toContain(asAdmin.status);
    },
  );

  it('refuses a Host that is not its own (DNS rebinding), even with the admin token', async () => {
    const refused = await request(app())
      .get('/v1/apps')
      .set({ ...access.headers('admin'), host: 'attacker.example:7101' })
      .expect(421);
    expect(refused.body.error.code).toBe('misdirected_request');
    await request(app())
      .get('/v1/apps')
      .set({ ...access.headers('admin'), host: 'localhost:7101' })
      .expect(200);
    await request(app()).get('/readyz').set({ host: 'attacker.example' }).expect(200);
  });

  it('keeps the probes and metrics open', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) await request(app()).get(path).expect(200);
  });
});

describe('the apps API', () => {
  it('refuses an invalid spec with the path of every bad field', async () => {
    const response = await api()
      .put('/v1/apps/Bad_Name')
      .send({
        image: '-rm -rf',
        port: 70_000,
        env: { '1BAD': 'x' },
        healthCheck: { type: 'http', path: 'no-slash' },
        resources: { cpu: 'lots', memory: '1Mi' },
        mode: 'forever',
        instances: { kind: 'single-session', warmPool: 5, max: 2 },
        price: { usd: '-1', unit: 'hour' },
        metadata: 'x'.repeat(1_025),
        egress: 'cluster',
        extra: true,
      })
      .expect(400);
    expect(response.body.error.code).toBe('invalid_request');
    const paths = (response.body.error.issues as { path: string }[]).map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'path.app',
        'body',
        'body.image',
        'body.port',
        'body.env.<key>',
        'body.healthCheck.path',
        'body.resources.cpu',
        'body.resources.memory',
        'body.mode',
        'body.instances.max',
        'body.price.usd',
        'body.metadata',
        'body.egress',
      ]),
    );
    expect(JSON.stringify(response.body)).not.toContain('rm -rf');
    const missing = await api().put('/v1/apps/demo').send({}).expect(400);
    expect((missing.body.error.issues as { path: string }[]).map((issue) => issue.path).sort()).toEqual(
      ['body.healthCheck', 'body.image', 'body.instances', 'body.mode', 'body.port', 'body.resources'].sort(),
    );
  });

  it('creates, keeps idempotently, updates, lists, reads and deletes specs', async () => {
    const client = api();
    const spec = singleSessionSpec(1, 2);
    const created = await client.put('/v1/apps/demo').send(spec).expect(201);
    expect(created.body).toMatchObject({
      name: 'demo',
      status: 'active',
      spec,
      instances: { starting: 0, ready: 0, taken: 0, withdrawing: 0 },
    });
    const again = await client.put('/v1/apps/demo').send(spec).expect(200);
    expect(again.body.updatedAt).toBe(created.body.updatedAt);
    expect(again.body.templateHash).toBe(created.body.templateHash);
    const scaled = await client.put('/v1/apps/demo').send(singleSessionSpec(2, 2)).expect(200);
    expect(scaled.body.templateHash).toBe(created.body.templateHash);
    const changed = await client
      .put('/v1/apps/demo')
      .send(singleSessionSpec(2, 2, { env: { A: 'b' } }))
      .expect(200);
    expect(changed.body.templateHash).not.toBe(created.body.templateHash);
    await client.put('/v1/apps/other').send(spec).expect(201);
    const list = await client.get('/v1/apps').expect(200);
    expect(list.body.apps.map((app: { name: string }) => app.name)).toEqual(['demo', 'other']);
    await client.get('/v1/apps/nope').expect(404);
    const deleting = await client.delete('/v1/apps/demo').expect(202);
    expect(deleting.body.status).toBe('deleting');
    await client.delete('/v1/apps/nope').expect(404);
    expect(reconciled).toEqual(expect.arrayContaining(['demo', 'other']));
  });

  it('lists instances, validates queries and serves the OpenAPI document', async () => {
    const client = api();
    expect((await client.get('/v1/instances').expect(200)).body).toEqual({ instances: [] });
    await client.get('/v1/instances?state=sleeping').expect(400);
    await client.get('/v1/instances/abcde12345').expect(404);
    await client.get('/v1/instances/abcde12345/logs?tail=0').expect(400);
    const document = await client.get('/v1/openapi.json').expect(200);
    expect(document.body.paths['/v1/apps/{app}'].put.operationId).toBe('putApp');
  });

  it('answers 503 while Redis is down', async () => {
    const client = api();
    await redis.kill9();
    try {
      const response = await client.get('/v1/apps').expect(503);
      expect(response.body.error.code).toBe('unavailable');
    } finally {
      await redis.restart();
    }
  });
});
