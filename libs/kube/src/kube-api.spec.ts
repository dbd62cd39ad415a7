import { describe, expect, it, jest } from '@jest/globals';
import type { KubeClientApis } from './kube-api';
import { apiStatus, createKubeApi } from './kube-api';

const apiError = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });

function fakeApis(failures: Partial<Record<string, number>> = {}) {
  const calls: { method: string; param: unknown }[] = [];
  const method = (name: string, result: unknown = {}) =>
    jest.fn(async (param: unknown) => {
      calls.push({ method: name, param });
      const code = failures[name];
      if (code !== undefined) throw apiError(code);
      return result;
    });
  const apis = {
    core: {
      createNamespacedPod: method('createNamespacedPod'),
      deleteNamespacedPod: method('deleteNamespacedPod'),
      readNamespacedPodLog: method('readNamespacedPodLog', '2025-01-01T00:00:00Z hello\n'),
    },
    networking: {
      createNamespacedNetworkPolicy: method('createNamespacedNetworkPolicy'),
      replaceNamespacedNetworkPolicy: method('replaceNamespacedNetworkPolicy'),
      deleteNamespacedNetworkPolicy: method('deleteNamespacedNetworkPolicy'),
    },
  } as unknown as KubeClientApis;
  return { apis, calls };
}

describe('createKubeApi', () => {
  it('reads the status of ApiException-like errors only', () => {
    expect(apiStatus(apiError(404))).toBe(404);
    expect(apiStatus(new Error('x'))).toBeUndefined();
    expect(apiStatus('x')).toBeUndefined();
  });

  it('creates pods in its namespace and treats 409 as an existing pod', async () => {
    const ok = fakeApis();
    expect(await createKubeApi(ok.apis, 'apps').createPod({ metadata: { name: 'p' } })).toBe('created');
    expect(ok.calls[0]).toEqual({
      method: 'createNamespacedPod',
      param: { namespace: 'apps', body: { metadata: { name: 'p' } } },
    });
    expect(await createKubeApi(fakeApis({ createNamespacedPod: 409 }).apis, 'apps').createPod({})).toBe(
      'exists',
    );
    await expect(
      createKubeApi(fakeApis({ createNamespacedPod: 403 }).apis, 'apps').createPod({}),
    ).rejects.toThrow('HTTP 403');
  });

  it('treats 404 on delete and logs as absent, and rethrows other failures', async () => {
    expect(await createKubeApi(fakeApis().apis, 'apps').deletePod('p', 5)).toBe('deleted');
    expect(await createKubeApi(fakeApis({ deleteNamespacedPod: 404 }).apis, 'apps').deletePod('p')).toBe(
      'absent',
    );
    await expect(
      createKubeApi(fakeApis({ deleteNamespacedPod: 500 }).apis, 'apps').deletePod('p'),
    ).rejects.toThrow();
    expect(
      await createKubeApi(fakeApis({ readNamespacedPodLog: 404 }).apis, 'apps').readPodLog('p', 10),
    ).toBe('');
    const logs = fakeApis();
    expect(await createKubeApi(logs.apis, 'apps').readPodLog('p', 10)).toContain('hello');
    expect(logs.calls[0]?.param).toEqual({
      name: 'p',
      namespace: 'apps',
      container: 'app',
      tailLines: 10,
      timestamps: true,
    });
    expect(
      await createKubeApi(fakeApis({ deleteNamespacedNetworkPolicy: 404 }).apis, 'apps').deleteNetworkPolicy(
        'n',
      ),
    ).toBe('absent');
  });

  it('replaces a NetworkPolicy that exists', async () => {
    const conflict = fakeApis({ createNamespacedNetworkPolicy: 409 });
    const policy = { metadata: { name: 'sandbox-app-demo' } };
    expect(await createKubeApi(conflict.apis, 'apps').applyNetworkPolicy(policy)).toBe('replaced');
    expect(conflict.calls[1]).toEqual({
      method: 'replaceNamespacedNetworkPolicy',
      param: { name: 'sandbox-app-demo', namespace: 'apps', body: policy },
    });
    expect(await createKubeApi(fakeApis().apis, 'apps').applyNetworkPolicy(policy)).toBe('created');
  });
});
