import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createHealth } from '../health/health';
import { createLogger } from '../logging/logger';
import { createMetrics } from '../metrics/metrics';
import { bearerAuth, bearerToken, matchesBearer } from './bearer-auth';
import { createHttpApp } from './create-http-app';

describe('bearer auth', () => {
  it('drops only trailing line breaks from a secret file', () => {
    expect(bearerToken('s3cret-token\n')).toBe('s3cret-token');
    expect(bearerToken('s3cret-token\r\n')).toBe('s3cret-token');
    expect(bearerToken(' s3cret token ')).toBe(' s3cret token ');
  });

  it('matches exactly Bearer <token>', () => {
    expect(matchesBearer('Bearer abcdefgh', 'abcdefgh')).toBe(true);
    expect(matchesBearer('Bearer abcdefgh ', 'abcdefgh')).toBe(false);
    expect(matchesBearer('bearer abcdefgh', 'abcdefgh')).toBe(false);
    expect(matchesBearer('abcdefgh', 'abcdefgh')).toBe(false);
    expect(matchesBearer(undefined, 'abcdefgh')).toBe(false);
  });

  it('answers 401 with the protocol body without the credential', async () => {
    const logger = createLogger({ svc: 'test', level: 'silent' });
    const app = createHttpApp({
      logger,
      health: createHealth(),
      metrics: createMetrics({ svc: 'test', collectDefaults: false }),
      configure: (router) => {
        router.get('/private', bearerAuth('abcdefgh'), (_req, res) => void res.json({ ok: true }));
      },
    });
    const refused = await request(app).get('/private').set('Authorization', 'Bearer wrong-one').expect(401);
    expect(refused.body.error.code).toBe('unauthenticated');
    expect(JSON.stringify(refused.body)).not.toContain('wrong-one');
    await request(app).get('/private').set('Authorization', 'Bearer abcdefgh').expect(200);
    expect(() => bearerAuth('')).toThrow();
  });
});
