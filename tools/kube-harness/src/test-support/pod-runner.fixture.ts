import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { createLocalDriver, type SandboxDriver } from '@sandbox/sandbox-local';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import { waitFor } from '@sandbox/testing';
import { testLogger } from './describe-with-kube.fixture';

/** Builds (or finds) the example app's podman image and returns its tag. */
export const exampleImage = (): Promise<string> => ensureExampleAppImage();

/** A local driver for one test file's pod runner: its own prefix and subnet. */
export function runnerDriver(prefix: string, subnet: string): SandboxDriver {
  return createLocalDriver({ logger: testLogger, prefix, subnet });
}

/** Reads a pod; undefined once it is gone. */
export async function readPod(
  admin: KubeConfig,
  namespace: string,
  name: string,
): Promise<V1Pod | undefined> {
  try {
    return await admin.makeApiClient(CoreV1Api).readNamespacedPod({ name, namespace });
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** Waits until `predicate` holds for the pod as read from the API, and returns it. */
export function waitForPod(
  admin: KubeConfig,
  namespace: string,
  name: string,
  description: string,
  predicate: (pod: V1Pod) => boolean,
  timeoutMs = 60_000,
): Promise<V1Pod> {
  return waitFor(
    async () => {
      const pod = await readPod(admin, namespace, name);
      return pod && predicate(pod) ? pod : undefined;
    },
    { description: `pod ${name} ${description}`, timeoutMs, intervalMs: 100 },
  );
}

/** The Ready condition's value. */
export function isReady(pod: V1Pod): boolean {
  return (
    pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ??
    false
  );
}
