import { afterAll, describe, expect, it } from '@jest/globals';
import { createTestAccess } from '@sandbox/testing';
import { EventEmitter } from 'node:events';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { baseEnvSchema } from '../config/base-env';
import { boundPort } from '../http/listen';
import { createHttpApp } from '../http/create-http-app';
import type { LeaseGate, LeaseGateHandlers } from './lease-gate';
import { startService } from './start-service';

const access = createTestAccess();
afterAll(() => access.cleanup());

/** A lease the test grants and takes away by hand. */
function scriptedLease() {
  let handlers: LeaseGateHandlers | undefined;
  const calls: string[] = [];
  const lease: LeaseGate = {
    run: (given) => void (handlers = given),
    release: async () => void calls.push('release'),
  };
  return {
    lease,
    calls,
    grant: () => handlers?.onActive(),
    take: (reason: string) => handlers?.onLost(reason),
  };
}

async function startWithLease() {
  const scripted = scriptedLease();
  const signals = new EventEmitter();
  const out = memoryDestination();
  let exited: (code: number) => void = () => undefined;
  const exit = new Promise<number>((resolve) => (exited = resolve));
  const { server, runtime } = await startService({
    name: 'lease-svc',
    configSchema: baseEnvSchema({ port: 7198 }),
    env: { PORT: '0', DRAIN_DELAY_MS: '0', ...access.env },
    signals,
    destination: out,
    exit: (code) => exited(code),
    compose: ({ runtime, access: policy }) => ({
      app: createHttpApp({ ...runtime, access: policy }),
      activeParts: {
        lease: scripted.lease,
        start: [{ name: 'reconciler', run: () => void scripted.calls.push('start') }],
        stop: async () => void scripted.calls.push('stop'),
      },
    }),
  });
  const readyz = async () => {
    const response = await fetch(`http://127.0.0.1:${boundPort(server)}/readyz`);
    return { status: response.status, body: (await response.json()) as { status: string } };
  };
  const metric = async () =>
    (await (await fetch(`http://127.0.0.1:${boundPort(server)}/metrics`)).text()).match(
      /^lease_active\{.*\} (\d)$/m,
    )?.[1];
  const write = async () =>
    (
      await fetch(`http://127.0.0.1:${boundPort(server)}/things`, {
        method: 'POST',
        headers: access.headers('admin'),
      })
    ).status;
  return { ...scripted, signals, exit, readyz, metric, runtime, write };
}

describe('active parts behind a lease', () => {
  it('a standby serves and reports 503 standby; once it holds the lease it starts the parts and turns ready', async () => {
    const service = await startWithLease();
    expect(await service.readyz()).toEqual({ status: 503, body: { status: 'standby', checks: [] } });
    expect(await service.metric()).toBe('0');
    expect(await service.write()).toBe(503);
    service.grant();
    await new Promise((resolve) => setImmediate(resolve));
    expect(service.calls).toEqual(['start']);
    expect((await service.readyz()).status).toBe(200);
    expect(await service.metric()).toBe('1');
    // Past the standby guard: the app itself answers (no such route).
    expect(await service.write()).toBe(404);
    service.signals.emit('SIGTERM');
    expect(await service.exit).toBe(0);
    // The parts stop in the workers phase, the lease is freed after them.
    expect(service.calls).toEqual(['start', 'stop', 'release']);
  });

  it('a lost lease stops the parts at once and exits 1, to come back as a standby', async () => {
    const service = await startWithLease();
    service.grant();
    await new Promise((resolve) => setImmediate(resolve));
    service.take('renew deadline passed');
    expect(service.runtime.health.state).toBe('ready');
    expect((await service.runtime.health.readiness()).report.status).toBe('standby');
    expect(await service.exit).toBe(1);
    expect(service.calls).toEqual(['start', 'stop', 'release']);
  });
});
