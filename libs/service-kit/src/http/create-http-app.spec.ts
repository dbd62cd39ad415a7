import { describe, expect, it, jest } from '@jest/globals';
import { ErrorBodySchema } from '@sandbox/protocol';
import request from 'supertest';
import { z } from 'zod';
import { testApp } from '../__fixtures__/test-app';
import { validate } from './validate';

const ItemSchema = z.strictObject({ name: z.string().min(1), capacity: z.number().int().positive() });

function itemsApp(bodyLimit?: number) {
  return testApp({
    ...(bodyLimit === undefined ? {} : { bodyLimit }),
    configure: (app) => {
      app.get('/v1/items/:id', (req, res) => {
        res.json({ id: req.params['id'] });
      });
      app.post('/v1/items', (req, res) => {
        res.status(201).json(validate(ItemSchema, req.body, 'body'));
      });
    },
  });
}

describe('createHttpApp probes', () => {
  it('/healthz answers 200 without calling any readiness check, whatever the state', async () => {
    const { app, health } = itemsApp();
    const check = jest.fn(() => false);
    health.addReadinessCheck('redis', check);
    await request(app).get('/healthz').expect(200, { status: 'ok' });
    health.markReady();
    health.markStopping();
    await request(app).get('/healthz').expect(200, { status: 'ok' });
    expect(check).not.toHaveBeenCalled();
  });

  it('/readyz is 503 while starting, 200 when ready and every check passes, 503 once stopping', async () => {
    const { app, health } = itemsApp();
    health.addReadinessCheck('redis', () => true);
    health.addReadinessCheck('informers', async () => undefined);
    await request(app).get('/readyz').expect(503, { status: 'starting', checks: [] });
    health.markReady();
    await request(app)
      .get('/readyz')
      .expect(200, {
        status: 'ready',
        checks: [
          { name: 'redis', status: 'pass' },
          { name: 'informers', status: 'pass' },
        ],
      });
    health.markStopping();
    await request(app).get('/readyz').expect(503, { status: 'stopping', checks: [] });
  });

  it('/readyz is 503 naming the failing check, without its error text', async () => {
    const { app, health, out } = itemsApp();
    health.addReadinessCheck('redis', () => {
      throw new Error('connect ECONNREFUSED redis://:hunter2-password@127.0.0.1:6390');
    });
    health.addReadinessCheck('queue', () => true);
    health.markReady();
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body).toEqual({
      status: 'not_ready',
      checks: [
        { name: 'redis', status: 'fail' },
        { name: 'queue', status: 'pass' },
      ],
    });
    expect(res.text).not.toContain('hunter2');
    expect(out.text()).not.toContain('hunter2');
    expect(out.records()).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'readiness check failed', check: 'redis' }),
    );
  });

  it('/metrics serves the registry with request durations labelled by route pattern', async () => {
    const { app } = itemsApp();
    await request(app).get('/v1/items/abc').expect(200);
    await request(app).get('/nowhere').expect(404);
    const res = await request(app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/v1\/items\/:id"[^}]*\} 1/);
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="unmatched"[^}]*status_code="404"/,
    );
    expect(res.text).toContain('svc="test-svc"');
    expect(res.text).not.toContain('abc');
  });
});

describe('createHttpApp requests', () => {
  it('adopts a sane incoming request id and echoes it; replaces an unusable one', async () => {
    const { app } = itemsApp();
    await request(app)
      .get('/v1/items/1')
      .set('X-Request-Id', 'edge-7f3a:01')
      .expect('X-Request-Id', 'edge-7f3a:01');
    for (const bad of ['has space', 'x'.repeat(129), '-leading-dash', 'a\u00e9']) {
      const res = await request(app).get('/v1/items/1').set('X-Request-Id', bad);
      expect(res.headers['x-request-id']).toMatch(/^generated-\d+$/);
    }
  });

  it('answers unknown routes with the protocol 404 body carrying the request id', async () => {
    const { app } = itemsApp();
    const res = await request(app).get('/v1/missing').set('X-Request-Id', 'req-404').expect(404);
    expect(ErrorBodySchema.parse(res.body)).toEqual({
      error: { code: 'not_found', message: 'no such route' },
      requestId: 'req-404',
    });
  });

  it('answers 413 payload_too_large for a body over the limit', async () => {
    const { app } = itemsApp(64);
    const res = await request(app)
      .post('/v1/items')
      .send({ name: 'x'.repeat(100), capacity: 1 })
      .expect(413);
    expect(ErrorBodySchema.parse(res.body).error).toEqual({
      code: 'payload_too_large',
      message: 'request body too large',
    });
  });

  it('answers 400 invalid_request for malformed JSON', async () => {
    const { app, out } = itemsApp();
    const res = await request(app)
      .post('/v1/items')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(ErrorBodySchema.parse(res.body).error).toEqual({
      code: 'invalid_request',
      message: 'request body is not valid JSON',
    });
    expect(out.records().some((record) => record['msg'] === 'request failed')).toBe(false);
  });

  it('answers 400 with every invalid field from validate', async () => {
    const { app } = itemsApp();
    const res = await request(app).post('/v1/items').send({ capacity: -1, extra: 1 }).expect(400);
    const body = ErrorBodySchema.parse(res.body);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.issues?.map((issue) => issue.path).sort()).toEqual([
      'body',
      'body.capacity',
      'body.name',
    ]);
    await request(app)
      .post('/v1/items')
      .send({ name: 'a', capacity: 2 })
      .expect(201, { name: 'a', capacity: 2 });
  });

  it('logs requests with credential headers and secret query parameters redacted', async () => {
    const { app, out } = itemsApp();
    const canary = 'canary-header-31c9be07';
    await request(app)
      .get(`/v1/items/1?session_token=${canary}&app=demo`)
      .set('Authorization', canary)
      .set('Livepeer-Session-Token', canary)
      .set('Livepeer-Payment', canary)
      .set('Cookie', `sid=${canary}`)
      .set('X-Request-Id', 'req-log')
      .expect(200);
    await request(app).get('/healthz').expect(200);
    expect(out.text()).not.toContain(canary);
    const lines = out.records();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      reqId: 'req-log',
      req: {
        method: 'GET',
        headers: { authorization: '[redacted]', 'livepeer-session-token': '[redacted]' },
      },
      res: { statusCode: 200 },
    });
  });
});
