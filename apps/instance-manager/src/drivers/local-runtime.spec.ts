import { describe, expect, it, jest } from '@jest/globals';
import { InstanceCapacityError, NotReadyError } from '@sandbox/sandbox-local';
import type { DiscoveredInstance, SandboxDriver } from '@sandbox/sandbox-local';
import { singleSessionSpec } from '../domain/spec-fixtures.fixture';
import { createLocalRuntime, localInstanceSpec } from './local-runtime';
import { InstanceNotReadyError, InsufficientCapacityError } from './runtime-driver';

const request = (overrides: Record<string, unknown> = {}) => ({
  instanceId: 'abcde12345',
  app: 'demo',
  templateHash: 'h1',
  spec: singleSessionSpec(1, 2, overrides),
});

function fakeDriver(overrides: Partial<SandboxDriver> = {}): SandboxDriver {
  return {
    start: jest.fn(async () => ({
      instanceId: 'abcde12345',
      address: '10.1.0.2',
      port: 8080,
      url: 'http://10.1.0.2:8080',
    })),
    stop: jest.fn(async () => undefined),
    list: jest.fn(async () => []),
    logs: jest.fn(async () => []),
    waitForReady: jest.fn(async () => ({ elapsedMs: 1, attempts: 1 })),
    checkIsolation: jest.fn(async () => []),
    watchIsolation: jest.fn(() => ({ stop: async () => undefined })),
    ...overrides,
  };
}

describe('the local runtime', () => {
  it('maps an app spec to the sandbox spec with plain values and our labels', () => {
    expect(localInstanceSpec(request({ args: ['--x'], env: { A: '1' }, egress: 'internet' }))).toEqual({
      instanceId: 'abcde12345',
      image: 'localhost/example-app:1.0',
      port: 8080,
      args: ['--x'],
      env: { A: '1' },
      resources: { cpus: 0.5, memoryMb: 256 },
      egress: 'internet',
      labels: { app: 'demo', template: 'h1', kind: 'single-session' },
    });
    const mapped = localInstanceSpec(request({ resources: { cpu: '2', memory: '50000000' } }));
    expect(mapped.args).toBeUndefined();
    expect(mapped.resources).toEqual({ cpus: 2, memoryMb: 48 });
  });

  it('reports complete instances as running and partial ones as failed', async () => {
    const driver = fakeDriver({
      list: jest.fn(async (): Promise<DiscoveredInstance[]> => [
        {
          instanceId: 'a',
          labels: { app: 'demo' },
          url: 'http://10.1.0.2:8080',
          complete: true,
          parts: { container: true, namespace: true, veth: true, firewall: true },
        },
        {
          instanceId: 'b',
          labels: {},
          complete: false,
          parts: { container: false, namespace: true, veth: false, firewall: false },
        },
      ]),
    });
    expect(await createLocalRuntime(driver).list()).toEqual([
      { instanceId: 'a', app: 'demo', status: 'running', url: 'http://10.1.0.2:8080' },
      { instanceId: 'b', status: 'failed' },
    ]);
  });

  it('probes the instance at its URL and maps readiness failures', async () => {
    const ok = fakeDriver();
    const runtime = createLocalRuntime(ok);
    const options = { timeoutMs: 1_000, intervalMs: 100 };
    await expect(
      runtime.waitForReady({ instanceId: 'a', url: 'http://10.1.0.2:8080' }, request().spec, options),
    ).resolves.toEqual({
      url: 'http://10.1.0.2:8080',
    });
    expect(ok.waitForReady).toHaveBeenCalledWith(
      { instanceId: 'a', address: '10.1.0.2', port: 8080 },
      { type: 'http', path: '/healthz', expectedStatus: 200 },
      options,
    );
    const failing = createLocalRuntime(
      fakeDriver({ waitForReady: jest.fn(async () => Promise.reject(new NotReadyError('gone', 'exited'))) }),
    );
    await expect(
      failing.waitForReady({ instanceId: 'a', url: 'http://10.1.0.2:8080' }, request().spec, options),
    ).rejects.toEqual(new InstanceNotReadyError('exited'));
  });

  it('verifies isolation when opened, reports drift, and watches it until closed', async () => {
    const drift = { instanceId: 'abcde12345', problems: [], action: 'restored' as const };
    const stopWatch = jest.fn(async () => undefined);
    const driver = fakeDriver({
      checkIsolation: jest.fn(async () => [drift]),
      watchIsolation: jest.fn(() => ({ stop: stopWatch })),
    });
    const onDrift = jest.fn();
    const runtime = createLocalRuntime(driver, { isolationCheckIntervalMs: 500, onDrift });
    await runtime.open();
    expect(onDrift).toHaveBeenCalledWith(drift);
    expect(driver.watchIsolation).toHaveBeenCalledWith({ intervalMs: 500, onDrift });
    await runtime.close();
    expect(stopWatch).toHaveBeenCalledTimes(1);
  });

  it('maps the driver refusing an instance for lack of host capacity to a capacity error with its message', async () => {
    const refusal = new InstanceCapacityError({ cpus: 2, memoryMb: 256 }, { cpus: 0.5, memoryMb: 1024 });
    const runtime = createLocalRuntime(fakeDriver({ start: jest.fn(async () => Promise.reject(refusal)) }));
    const started = runtime.start(request());
    await expect(started).rejects.toBeInstanceOf(InsufficientCapacityError);
    await expect(started).rejects.toThrow('requests 2 CPUs and 256 MiB, 0.5 CPUs and 1024 MiB are left');
  });

  it('answers undefined logs for an instance that does not exist', async () => {
    const runtime = createLocalRuntime(
      fakeDriver({ logs: jest.fn(async () => Promise.reject(new Error('no such container'))) }),
    );
    expect(await runtime.logs({ instanceId: 'a' }, 10)).toBeUndefined();
  });
});
