import { describe, expect, it, jest } from '@jest/globals';
import { ApiException, PatchStrategy } from '@kubernetes/client-node';
import type { KubeClientApis } from './kube-api';
import { createKubeApi } from './kube-api';

const target = { namespace: 'apps', fieldManager: 'some-service' };
import {
  KubeApiError,
  KubeConflictError,
  KubeForbiddenError,
  KubeInvalidError,
  apiStatus,
  apiStatusMessage,
} from './kube-errors';

/** What client-node throws for a non-2xx answer: the code, and the `Status` body as JSON text. */
const apiError = (code: number, message = `refused with ${code}`) =>
  new ApiException(code, 'Unsuccessful HTTP Request', JSON.stringify({ kind: 'Status', message }), {});

function fakeApis(failures: Partial<Record<string, number>> = {}) {
  const calls: { method: string; args: unknown[] }[] = [];
  const method = (name: string, result: unknown = {}) =>
    jest.fn(async (...args: unknown[]) => {
      calls.push({ method: name, args });
      const code = failures[name];
      if (code !== undefined) throw apiError(code);
      return result ?? args[0];
    });
  const apis = {
    objects: { patch: method('patch', null) },
    core: {
      deleteNamespacedPod: method('deleteNamespacedPod'),
      readNamespacedPodLog: method('readNamespacedPodLog', '2025-01-01T00:00:00Z hello\n'),
    },
    networking: { deleteNamespacedNetworkPolicy: method('deleteNamespacedNetworkPolicy') },
  } as unknown as KubeClientApis;
  return { apis, calls };
}

describe('createKubeApi', () => {
  it('reads the status and the Status message of ApiExceptions only', () => {
    expect(apiStatus(apiError(404))).toBe(404);
    expect(apiStatus(new Error('x'))).toBeUndefined();
    expect(apiStatus('x')).toBeUndefined();
    expect(apiStatusMessage(apiError(422, 'spec.containers[0].image: Required value'))).toBe(
      'spec.containers[0].image: Required value',
    );
    expect(apiStatusMessage({ body: { message: 'parsed' } })).toBe('parsed');
    expect(apiStatusMessage({ body: 'not json' })).toBeUndefined();
  });

  it("writes pods and policies as forced server-side applies of the caller's field manager", async () => {
    const { apis, calls } = fakeApis();
    const api = createKubeApi(apis, target);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
    expect(await api.applyPod(pod)).toEqual({ ...pod, metadata: { name: 'p', namespace: 'apps' } });
    await api.applyNetworkPolicy({ kind: 'NetworkPolicy', metadata: { name: 'sandbox-app-demo' } });
    expect(calls.map((call) => call.args.slice(1))).toEqual([
      [undefined, undefined, 'some-service', true, PatchStrategy.ServerSideApply],
      [undefined, undefined, 'some-service', true, PatchStrategy.ServerSideApply],
    ]);
  });

  it('types refusals: 403 forbidden, 409 conflict, 422 invalid with the reason, others by status', async () => {
    const refused = (code: number) => createKubeApi(fakeApis({ patch: code }).apis, target);
    const pod = { metadata: { name: 'demo-x' } };
    const forbidden = refused(403).applyPod(pod);
    await expect(forbidden).rejects.toBeInstanceOf(KubeForbiddenError);
    await expect(forbidden).rejects.toThrow('the service account may not apply pod demo-x (403 Forbidden)');
    await expect(refused(409).applyNetworkPolicy(pod)).rejects.toBeInstanceOf(KubeConflictError);
    const invalid = await refused(422)
      .applyPod(pod)
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(KubeInvalidError);
    expect((invalid as KubeInvalidError).reason).toBe('refused with 422');
    const other = await refused(500)
      .applyPod(pod)
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(KubeApiError);
    expect((other as KubeApiError).status).toBe(500);
    const network = new Error('connect ECONNREFUSED');
    const down = fakeApis();
    jest.mocked(down.apis.objects.patch).mockRejectedValueOnce(network);
    await expect(createKubeApi(down.apis, target).applyPod(pod)).rejects.toBe(network);
  });

  it('treats 404 on delete and logs as already gone, and types other failures', async () => {
    expect(await createKubeApi(fakeApis().apis, target).deletePod('p', 5)).toBe('deleted');
    expect(await createKubeApi(fakeApis({ deleteNamespacedPod: 404 }).apis, target).deletePod('p')).toBe(
      'absent',
    );
    await expect(
      createKubeApi(fakeApis({ deleteNamespacedPod: 500 }).apis, target).deletePod('p'),
    ).rejects.toBeInstanceOf(KubeApiError);
    await expect(
      createKubeApi(fakeApis({ deleteNamespacedPod: 403 }).apis, target).deletePod('p'),
    ).rejects.toBeInstanceOf(KubeForbiddenError);
    expect(
      await createKubeApi(fakeApis({ readNamespacedPodLog: 404 }).apis, target).readPodLog('p', 10),
    ).toBe('');
    const logs = fakeApis();
    expect(await createKubeApi(logs.apis, target).readPodLog('p', 10)).toContain('hello');
    expect(logs.calls[0]?.args[0]).toEqual({
      name: 'p',
      namespace: 'apps',
      container: 'app',
      tailLines: 10,
      timestamps: true,
    });
    expect(
      await createKubeApi(fakeApis({ deleteNamespacedNetworkPolicy: 404 }).apis, target).deleteNetworkPolicy(
        'n',
      ),
    ).toBe('absent');
  });
});
