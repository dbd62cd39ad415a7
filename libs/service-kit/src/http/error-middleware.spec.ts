import { describe, expect, it } from '@jest/globals';
import { ErrorBodySchema } from '@sandbox/protocol';
import request from 'supertest';
import { testApp } from '../__fixtures__/test-app';
import type { AppError } from '../errors/app-error';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  MisdirectedRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnavailableError,
} from '../errors/app-error';
import { INTERNAL_MESSAGE, mapError } from './error-middleware';

const CANARY = 'canary-error-4e1f0c2a77';

function throwingApp(error: unknown, includeStacks = false) {
  return testApp({
    includeStacks,
    configure: (app) => {
      app.get('/sync', () => {
        throw error;
      });
      app.get('/async', async () => {
        await Promise.resolve();
        throw error;
      });
    },
  });
}

const cases: [AppError, number, string][] = [
  [
    new InputError('bad field', { issues: [{ path: 'body.port', message: 'Too small' }] }),
    400,
    'invalid_request',
  ],
  [new UnauthorizedError(), 401, 'unauthenticated'],
  [new MisdirectedRequestError(), 421, 'misdirected_request'],
  [new ForbiddenError('not yours'), 403, 'forbidden'],
  [new NotFoundError('no such app'), 404, 'not_found'],
  [new ConflictError('already draining'), 409, 'conflict'],
  [new PayloadTooLargeError(), 413, 'payload_too_large'],
  [new UnavailableError('redis unavailable'), 503, 'unavailable'],
];

describe('errorMiddleware', () => {
  it.each(cases)('maps %p to its status and code, sync and async', async (error, status, code) => {
    const { app } = throwingApp(error);
    for (const path of ['/sync', '/async']) {
      const res = await request(app).get(path).set('X-Request-Id', 'req-map').expect(status);
      const body = ErrorBodySchema.parse(res.body);
      expect(body).toEqual({
        error: { code, message: error.message, ...(error.issues ? { issues: error.issues } : {}) },
        requestId: 'req-map',
      });
    }
  });

  it('maps unknown errors to 500 internal with a generic message, never the message, cause or stack', async () => {
    const error = new Error(`database said ${CANARY}`, { cause: new Error(CANARY) });
    for (const includeStacks of [false, true]) {
      const { app } = throwingApp(error, includeStacks);
      const res = await request(app).get('/sync').expect(500);
      expect(ErrorBodySchema.parse(res.body).error).toEqual({ code: 'internal', message: INTERNAL_MESSAGE });
      expect(res.text).not.toContain(CANARY);
      expect(res.text).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it('maps thrown non-errors to 500', async () => {
    const { app } = throwingApp('a string');
    const res = await request(app).get('/async').expect(500);
    expect(res.body.error).toEqual({ code: 'internal', message: INTERNAL_MESSAGE });
  });

  it('logs 5xx with the error (500 at error, 503 at warn) and does not log 4xx', async () => {
    const internal = throwingApp(new Error('boom'));
    await request(internal.app).get('/sync').set('X-Request-Id', 'req-500').expect(500);
    expect(internal.out.records()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'request failed',
        reqId: 'req-500',
        err: expect.objectContaining({ message: 'boom' }),
      }),
    );
    const unavailable = throwingApp(new UnavailableError('redis down'));
    await request(unavailable.app).get('/sync').expect(503);
    expect(unavailable.out.records()).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'request failed', status: 503 }),
    );
    const notFound = throwingApp(new NotFoundError('no such app'));
    await request(notFound.app).get('/sync').expect(404);
    expect(notFound.out.records().filter((record) => record['msg'] === 'request failed')).toEqual([]);
  });

  it('keeps a registered secret out of the logged error', async () => {
    const { app, out, secrets } = throwingApp(
      new Error(`upstream ${CANARY}`, { cause: new Error(`cause ${CANARY}`) }),
    );
    secrets.register(CANARY);
    await request(app).get('/sync').expect(500);
    expect(out.text()).toContain('request failed');
    expect(out.text()).not.toContain(CANARY);
  });

  it('only logs and ends the connection when the response has already started', async () => {
    const { app, out } = testApp({
      configure: (router) => {
        router.get('/stream', (_req, res) => {
          res.write('partial');
          throw new Error('stream broke');
        });
      },
    });
    await expect(request(app).get('/stream')).rejects.toThrow();
    expect(out.records()).toContainEqual(
      expect.objectContaining({ msg: 'request failed after the response started' }),
    );
  });
});

describe('mapError', () => {
  it('maps body-parser client errors and nothing else that looks similar', () => {
    expect(mapError({ type: 'entity.too.large', expose: true, status: 413 }).status).toBe(413);
    expect(mapError({ type: 'entity.parse.failed', expose: true, status: 400 }).error.code).toBe(
      'invalid_request',
    );
    expect(mapError({ type: 'encoding.unsupported', expose: true, status: 415 }).status).toBe(400);
    expect(mapError({ type: 'entity.too.large', expose: false, status: 413 }).status).toBe(500);
    expect(mapError({ status: 404 }).status).toBe(500);
  });

  it("maps an infrastructure library's error by its protocol code; other codes are internal", () => {
    const issues = [{ path: 'n', message: 'Expected number' }];
    const refused = Object.assign(new Error('invalid data for job q/j: n'), {
      code: 'invalid_request',
      issues,
    });
    expect(mapError(refused)).toEqual({
      status: 400,
      error: { code: 'invalid_request', message: 'invalid data for job q/j: n', issues },
    });
    const down = Object.assign(new Error('queue q is unavailable'), { code: 'unavailable' });
    expect(mapError(down)).toEqual({ status: 503, error: { code: 'unavailable', message: down.message } });
    expect(mapError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).status).toBe(
      500,
    );
    expect(mapError(Object.assign(new Error(CANARY), { code: 'internal' })).error.message).toBe(
      INTERNAL_MESSAGE,
    );
  });
});
