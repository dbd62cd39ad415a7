// status's verdict on services that answer but are not ready, against scripted stand-ins (the real
// services answer in sandboxctl.int.spec.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findFreePort } from '@sandbox/testing';
import { runWith } from '../__fixtures__/memory-io';
import { startScriptedServer, type ScriptedServer } from '../__fixtures__/scripted-server';

const probes = (ready: boolean) => (_method: string, path: string) => {
  // The ready stand-in reports a version; the other is a service that predates it.
  if (path === '/healthz')
    return { status: 200, body: ready ? { status: 'ok', version: '1.4.2' } : { status: 'ok' } };
  if (path === '/readyz')
    return ready
      ? { status: 200, body: { status: 'ready', checks: [{ name: 'redis', status: 'pass' }] } }
      : { status: 503, body: { status: 'not_ready', checks: [{ name: 'redis', status: 'timeout' }] } };
  return {
    status: 503,
    body: { error: { code: 'unavailable', message: 'Redis is unavailable' }, requestId: 'r' },
  };
};

let ready: ScriptedServer;
let notReady: ScriptedServer;

beforeAll(async () => {
  ready = await startScriptedServer(await findFreePort(), probes(true));
  notReady = await startScriptedServer(await findFreePort(), probes(false));
});

afterAll(async () => {
  await Promise.all([ready.close(), notReady.close()]);
});

describe('status', () => {
  it('shows a failing readiness check, the module that cannot answer, and exits 1', async () => {
    const result = await runWith(
      [
        'status',
        ...['--server', `instance-manager=${ready.url}`],
        ...['--server', `adapter=${notReady.url}`],
        ...['--server', `redemption-handoff=${ready.url}`],
        ...['--server', `drain-controller=${ready.url}`],
        ...['--server', `verifier=${ready.url}`],
      ],
      { env: { SANDBOXCTL_CONFIG: '/nonexistent/config.yaml' } },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^SERVICE\s+LIVE\s+VERSION\s+READY\s+CHECKS\s+URL$/m);
    expect(result.stdout).toMatch(/^adapter\s+yes\s+-\s+not_ready\s+redis=timeout\s/m);
    expect(result.stdout).toMatch(/^instance-manager\s+yes\s+1\.4\.2\s+ready\s+redis=pass\s/m);
    expect(result.stdout).toMatch(
      /^instance-manager:\s+instance-manager refused \(503 unavailable\): Redis is unavailable$/m,
    );
    expect(result.stderr).toMatch(/^error: not ready: adapter, .*instance-manager/m);
  });
});
