import { ApiException, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { uniquePrefix } from '@sandbox/testing';

/** Namespaces one test file creates, each with a unique name. */
export interface TestNamespaces {
  /** Creates `<label>-<random hex>` with its `default` service account, and returns the name. */
  create(label: string, labels?: Record<string, string>): Promise<string>;
  /** Deletes every namespace this helper created. */
  cleanup(): Promise<void>;
}

/**
 * Gives a test file its own namespaces. No kube-controller-manager runs in the harness, so this
 * does what its service-account controller would: it creates the `default` service account, which
 * the ServiceAccount admission plugin requires before it admits a pod. Deleted namespaces stay
 * `Terminating` (no namespace controller empties them); they vanish with the harness.
 */
export function testNamespaces(admin: KubeConfig): TestNamespaces {
  const core = admin.makeApiClient(CoreV1Api);
  const created: string[] = [];
  return {
    create: async (label, labels = {}) => {
      const name = uniquePrefix(label).slice(0, 63);
      await core.createNamespace({ body: { metadata: { name, labels } } });
      created.push(name);
      await ensureDefaultServiceAccount(admin, name);
      return name;
    },
    cleanup: async () => {
      const names = created.splice(0);
      await Promise.all(names.map((name) => core.deleteNamespace({ name }).catch(() => undefined)));
    },
  };
}

/**
 * Creates the namespace's `default` service account unless it exists: the one thing of
 * kube-controller-manager's that pods need (the ServiceAccount admission plugin refuses a pod whose
 * service account is missing).
 */
export async function ensureDefaultServiceAccount(admin: KubeConfig, namespace: string): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  try {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'default' } } });
  } catch (error) {
    if (!(error instanceof ApiException && error.code === 409)) throw error;
  }
}
