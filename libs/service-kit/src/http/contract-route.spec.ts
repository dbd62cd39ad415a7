import { describe, expect, it } from '@jest/globals';
import { defineRoute } from '@sandbox/protocol';
import { Router } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { testApp } from '../__fixtures__/test-app';
import { serveRoute } from './contract-route';

const putThing = defineRoute({
  service: 'adapter',
  operationId: 'putThing',
  summary: 'a test route',
  method: 'PUT',
  path: '/v1/things/{name}',
  params: z.strictObject({ name: z.string().regex(/^[a-z]+$/) }),
  query: z.strictObject({ dry: z.enum(['true', 'false']).optional() }),
  body: z.strictObject({ size: z.number().int().default(1) }),
  success: [200],
  response: z.strictObject({ name: z.string(), size: z.number(), dry: z.boolean() }),
  errors: [],
  role: 'admin',
});

function app(role?: 'read' | 'admin') {
  return testApp({
    configure: (express) => {
      if (role !== undefined)
        express.use((_req, res, next) => {
          res.locals['accessRole'] = role;
          next();
        });
      const router = Router();
      serveRoute(router, putThing, ({ params, query, body }, _req, res) => {
        res.json({ name: params.name, size: body.size, dry: query.dry === 'true' });
      });
      express.use(router);
    },
  }).app;
}

describe('serveRoute', () => {
  it('hands the handler every part parsed by the contract (defaults applied)', async () => {
    const answer = await request(app()).put('/v1/things/box?dry=true').send({}).expect(200);
    expect(answer.body).toEqual({ name: 'box', size: 1, dry: true });
  });

  it('refuses bad input with one 400 listing every bad field by its part', async () => {
    const answer = await request(app())
      .put('/v1/things/BOX?dry=maybe')
      .send({ size: 'big', extra: 1 })
      .expect(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(answer.body.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'body',
      'body.size',
      'path.name',
      'query.dry',
    ]);
  });

  it("holds to the contract's role: an admin route refuses a read token", async () => {
    const refused = await request(app('read')).put('/v1/things/box').send({}).expect(403);
    expect(refused.body.error.code).toBe('forbidden');
    await request(app('admin')).put('/v1/things/box').send({}).expect(200);
  });
});
