// apply's handling of what only the service can refuse, against a scripted stand-in for instance-manager
// (the real service is exercised in sandboxctl.int.spec.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppSpecSchema } from '@sandbox/protocol';
import { findFreePort } from '@sandbox/testing';
import { runWith } from '../__fixtures__/memory-io';
import { startScriptedServer, type ScriptedServer } from '../__fixtures__/scripted-server';

const MANIFEST = `kind: App
name: echo
spec:
  image: localhost/example:1
  port: 8080
  mode: persistent
  healthCheck: { type: http, path: /healthz }
  resources: { cpu: 500m, memory: 256Mi }
  instances: { kind: single-session, warmPool: 2, max: 4 }
`;

let server: ScriptedServer;
const notFound = { error: { code: 'not_found', message: 'no such app' }, requestId: 'r1' };
const refused = {
  error: {
    code: 'invalid_request',
    message: 'invalid spec',
    issues: [{ path: 'instances.max', message: 'exceeds this host limit' }],
  },
  requestId: 'r2',
};

/** What instance-manager answers for an accepted spec. */
function created(name: string, body: string) {
  const at = new Date().toISOString();
  const instances = { starting: 0, ready: 0, taken: 0, withdrawing: 0 };
  const spec = AppSpecSchema.parse(JSON.parse(body));
  return {
    name,
    spec,
    templateHash: '0123456789abcdef',
    status: 'active',
    createdAt: at,
    updatedAt: at,
    instances,
  };
}

beforeAll(async () => {
  server = await startScriptedServer(await findFreePort(), (method, path, body) => {
    if (method === 'GET') return { status: 404, body: notFound };
    if (path === '/v1/apps/first') return { status: 201, body: created('first', body) };
    return { status: 400, body: refused };
  });
});

afterAll(async () => {
  await server.close();
});

describe('apps apply against a service that refuses the spec', () => {
  it('points each field the service names at its line in the manifest and exits 1', async () => {
    const result = await runWith(['apps', 'apply', '-f', '-', '--server', `instance-manager=${server.url}`], {
      stdin: `${MANIFEST.replace('name: echo', 'name: first')}---\n${MANIFEST}`,
      env: { SANDBOXCTL_CONFIG: '/nonexistent/config.yaml' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('app/first created\n');
    expect(result.stderr).toBe(
      'error: <stdin> is invalid; applied before the refusal: app/first; nothing after it:\n' +
        '  <stdin>:19:56: instances.max: exceeds this host limit (refused by instance-manager)\n',
    );
    expect(server.requests.map((request) => `${request.method} ${request.path}`).slice(-2)).toEqual([
      'PUT /v1/apps/first',
      'PUT /v1/apps/echo',
    ]);
    // The spec is sent as written: the service applies its own defaults.
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}')).not.toHaveProperty('egress');
  });
});
