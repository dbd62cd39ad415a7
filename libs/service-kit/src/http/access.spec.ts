import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { testApp } from '../__fixtures__/test-app';
import { accessPolicy, hostNameOf, isAllowedHost, roleOfCredential } from './access';

const tokens = { admin: 'admin-token-0123456789abcdef', read: 'read-token-0123456789abcdef' };

function guarded(options: { basicAuth?: boolean } = {}) {
  return testApp({
    configure: (app) => {
      app.use(accessPolicy({ tokens, serviceName: 'adapter', ...options }));
      app.get('/v1/things', (_req, res) => res.json({ role: res.locals['accessRole'] }));
      app.post('/v1/things', (_req, res) => res.json({ role: res.locals['accessRole'] }));
    },
  });
}

describe('accessPolicy', () => {
  it('maps credentials to roles, and nothing else to a role', () => {
    expect(roleOfCredential(tokens.admin, tokens)).toBe('admin');
    expect(roleOfCredential(tokens.read, tokens)).toBe('read');
    for (const other of [undefined, '', tokens.admin.slice(0, -1), `${tokens.read} `, 'x'])
      expect(roleOfCredential(other, tokens)).toBeUndefined();
  });

  it('refuses equal or empty tokens at start-up', () => {
    expect(() => accessPolicy({ tokens: { admin: 'same', read: 'same' }, serviceName: 'a' })).toThrow(
      'differ',
    );
    expect(() => accessPolicy({ tokens: { admin: '', read: 'r' }, serviceName: 'a' })).toThrow('empty');
  });

  it('answers 401, 403 or the route, by role and method', async () => {
    const { app, out } = guarded();
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await request(app).get('/v1/things').expect(401)).body.error.code).toBe('unauthenticated');
    await request(app).get('/v1/things').set(bearer('nope')).expect(401);
    expect((await request(app).get('/v1/things').set(bearer(tokens.read)).expect(200)).body.role).toBe(
      'read',
    );
    expect((await request(app).post('/v1/things').set(bearer(tokens.read)).expect(403)).body.error.code).toBe(
      'forbidden',
    );
    expect((await request(app).post('/v1/things').set(bearer(tokens.admin)).expect(200)).body.role).toBe(
      'admin',
    );
    // Basic auth only where asked for; then the token is the password.
    const basic = `Basic ${Buffer.from(`me:${tokens.admin}`).toString('base64')}`;
    await request(app).get('/v1/things').set({ authorization: basic }).expect(401);
    await request(guarded({ basicAuth: true }).app)
      .get('/v1/things')
      .set({ authorization: basic })
      .expect(200);
    await request(app).get('/healthz').expect(200);
    for (const token of Object.values(tokens)) expect(out.text()).not.toContain(token);
  });

  it('accepts only its own, loopback, address and configured host names', () => {
    const allowed = (header: string) => isAllowedHost(hostNameOf(header), 'adapter', ['ops.example.com']);
    for (const ok of [
      'localhost:7102',
      '127.0.0.1:7102',
      '[::1]:7102',
      '10.0.0.5',
      'adapter',
      'adapter:7102',
      'ADAPTER.sandbox-system.svc:7102',
      'adapter.sandbox-system.svc.cluster.local',
      'ops.example.com',
      'app.localhost',
    ])
      expect([ok, allowed(ok)]).toEqual([ok, true]);
    for (const bad of [
      '',
      'evil.example',
      'adapter.com',
      'adapter.evil.example',
      'x.adapter',
      'adapter.ns.svc.evil',
    ])
      expect([bad, allowed(bad)]).toEqual([bad, false]);
  });
});
