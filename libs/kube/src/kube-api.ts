import type { CoreV1Api, NetworkingV1Api, V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';

/** The few calls instance-manager makes against the apps namespace, with 404 and 409 handled. */
export interface KubeApi {
  /** `exists` when a pod of that name is already there (a retried start). */
  createPod(pod: V1Pod): Promise<'created' | 'exists'>;
  /** `absent` when there was nothing to delete. */
  deletePod(name: string, gracePeriodSeconds?: number): Promise<'deleted' | 'absent'>;
  /** The last `tailLines` lines of the app container, with timestamps; '' when the pod is gone. */
  readPodLog(name: string, tailLines: number): Promise<string>;
  /** Creates the policy, or replaces the existing one of that name. */
  applyNetworkPolicy(policy: V1NetworkPolicy): Promise<'created' | 'replaced'>;
  deleteNetworkPolicy(name: string): Promise<'deleted' | 'absent'>;
}

/** The generated client-node APIs {@link createKubeApi} calls (object-parameter style). */
export interface KubeClientApis {
  core: Pick<CoreV1Api, 'createNamespacedPod' | 'deleteNamespacedPod' | 'readNamespacedPodLog'>;
  networking: Pick<
    NetworkingV1Api,
    'createNamespacedNetworkPolicy' | 'replaceNamespacedNetworkPolicy' | 'deleteNamespacedNetworkPolicy'
  >;
}

/** The HTTP status of a client-node `ApiException` (it carries `code`), else undefined. */
export function apiStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

async function absentOn404<T>(call: () => Promise<unknown>, absent: T, done: T): Promise<T> {
  try {
    await call();
    return done;
  } catch (error) {
    if (apiStatus(error) === 404) return absent;
    throw error;
  }
}

/** {@link KubeApi} over client-node's generated APIs, for one namespace. */
export function createKubeApi(apis: KubeClientApis, namespace: string): KubeApi {
  const { core, networking } = apis;
  return {
    async createPod(pod) {
      try {
        await core.createNamespacedPod({ namespace, body: pod });
        return 'created';
      } catch (error) {
        if (apiStatus(error) === 409) return 'exists';
        throw error;
      }
    },
    deletePod: (name, gracePeriodSeconds) =>
      absentOn404(
        () => core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds }),
        'absent' as const,
        'deleted' as const,
      ),
    async readPodLog(name, tailLines) {
      try {
        return await core.readNamespacedPodLog({
          name,
          namespace,
          container: 'app',
          tailLines,
          timestamps: true,
        });
      } catch (error) {
        if (apiStatus(error) === 404) return '';
        throw error;
      }
    },
    async applyNetworkPolicy(policy) {
      try {
        await networking.createNamespacedNetworkPolicy({ namespace, body: policy });
        return 'created';
      } catch (error) {
        if (apiStatus(error) !== 409) throw error;
        const name = policy.metadata?.name ?? '';
        await networking.replaceNamespacedNetworkPolicy({ name, namespace, body: policy });
        return 'replaced';
      }
    },
    deleteNetworkPolicy: (name) =>
      absentOn404(
        () => networking.deleteNamespacedNetworkPolicy({ name, namespace }),
        'absent' as const,
        'deleted' as const,
      ),
  };
}
