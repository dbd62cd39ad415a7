import { PatchStrategy } from '@kubernetes/client-node';
import type {
  CoreV1Api,
  KubernetesObjectApi,
  NetworkingV1Api,
  V1NetworkPolicy,
  V1Pod,
} from '@kubernetes/client-node';
import { apiStatus, kubeError } from './kube-errors';
import type { KubeAction } from './kube-errors';

/**
 * The few calls a service makes against one namespace (instance-manager: the apps namespace). Writes are server-side applies
 * (a retried apply of the same object changes nothing); 404 on delete and logs means already gone;
 * other refusals are typed errors (`KubeForbiddenError`, `KubeConflictError`, `KubeInvalidError`).
 */
export interface KubeApi {
  /** Creates the pod, or leaves the existing one as it is when it matches; returns it as stored. */
  applyPod(pod: V1Pod): Promise<V1Pod>;
  /** `absent` when there was nothing to delete. */
  deletePod(name: string, gracePeriodSeconds?: number): Promise<'deleted' | 'absent'>;
  /** The last `tailLines` lines of the app container, with timestamps; '' when the pod is gone. */
  readPodLog(name: string, tailLines: number): Promise<string>;
  /** Makes the policy exactly this one, taking back fields anyone else changed; returns it as stored. */
  applyNetworkPolicy(policy: V1NetworkPolicy): Promise<V1NetworkPolicy>;
  deleteNetworkPolicy(name: string): Promise<'deleted' | 'absent'>;
}

/** The client-node APIs {@link createKubeApi} calls (object-parameter style, and the object API). */
export interface KubeClientApis {
  objects: Pick<KubernetesObjectApi, 'patch'>;
  core: Pick<CoreV1Api, 'deleteNamespacedPod' | 'readNamespacedPodLog'>;
  networking: Pick<NetworkingV1Api, 'deleteNamespacedNetworkPolicy'>;
}

async function typed<T>(action: KubeAction, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw kubeError(error, action);
  }
}

async function deleteOr404(action: KubeAction, call: () => Promise<unknown>): Promise<'deleted' | 'absent'> {
  try {
    await call();
    return 'deleted';
  } catch (error) {
    if (apiStatus(error) === 404) return 'absent';
    throw kubeError(error, action);
  }
}

/**
 * The API server answers a container without output with an empty body and no Content-Type, which
 * client-node refuses to parse (it throws before looking at the body). Any non-empty answer carries a
 * Content-Type (Go sniffs one from the first bytes), so this error means an empty log.
 */
function emptyLogAnswer(error: unknown): boolean {
  return error instanceof Error && error.message === 'Cannot parse content. No Content-Type defined.';
}

/** Where a {@link KubeApi} writes, and as whom. */
export interface KubeApiTarget {
  namespace: string;
  /**
   * Field manager of every server-side apply (normally the service's name). Persistent: the API server
   * records field ownership under this name, and a renamed manager would conflict with its old self.
   */
  fieldManager: string;
}

/** {@link KubeApi} over client-node's APIs, for one namespace and one field manager. */
export function createKubeApi(apis: KubeClientApis, target: KubeApiTarget): KubeApi {
  const { objects, core, networking } = apis;
  const { namespace, fieldManager } = target;
  // Forced: these objects are ours alone, so fields someone else set on them are taken back.
  const apply = <T extends V1Pod | V1NetworkPolicy>(object: T): Promise<T> =>
    objects.patch<T>(
      { ...object, metadata: { ...object.metadata, namespace } },
      undefined,
      undefined,
      fieldManager,
      true,
      PatchStrategy.ServerSideApply,
    );
  const nameOf = (object: V1Pod | V1NetworkPolicy) => object.metadata?.name ?? '';
  return {
    applyPod: (pod) => typed({ verb: 'apply', kind: 'pod', name: nameOf(pod) }, () => apply(pod)),
    deletePod: (name, gracePeriodSeconds) =>
      deleteOr404({ verb: 'delete', kind: 'pod', name }, () =>
        core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds }),
      ),
    async readPodLog(name, tailLines) {
      try {
        const params = { name, namespace, container: 'app', tailLines, timestamps: true };
        return await core.readNamespacedPodLog(params);
      } catch (error) {
        if (apiStatus(error) === 404 || emptyLogAnswer(error)) return '';
        throw kubeError(error, { verb: 'read log of', kind: 'pod', name });
      }
    },
    applyNetworkPolicy: (policy) =>
      typed({ verb: 'apply', kind: 'NetworkPolicy', name: nameOf(policy) }, () => apply(policy)),
    deleteNetworkPolicy: (name) =>
      deleteOr404({ verb: 'delete', kind: 'NetworkPolicy', name }, () =>
        networking.deleteNamespacedNetworkPolicy({ name, namespace }),
      ),
  };
}
