import { writeFile } from 'node:fs/promises';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { MANAGED_POD_SELECTOR, podIdentity } from '@sandbox/kube';

/** Writes `account` as a kubeconfig file whose server is `server` (a proxy in front of the API). */
export async function writeKubeconfigVia(account: KubeConfig, server: string, file: string): Promise<string> {
  const config = JSON.parse(account.exportConfig()) as { clusters: { cluster: { server: string } }[] };
  for (const entry of config.clusters) entry.cluster.server = server;
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

/** Our instance pods in the namespace, as the API has them now. */
export async function managedPods(core: CoreV1Api, namespace: string): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace, labelSelector: MANAGED_POD_SELECTOR })).items;
}

/** The pod of an instance, if any. */
export function podOfInstance(pods: readonly V1Pod[], instanceId: string): V1Pod | undefined {
  return pods.find((pod) => podIdentity(pod).instanceId === instanceId);
}

/** Pods not being deleted and live records name exactly the same instances. */
export function sameInstances(pods: readonly V1Pod[], records: readonly { id: string }[]): boolean {
  const running = pods.filter((pod) => !pod.metadata?.deletionTimestamp);
  const podIds = running.map((pod) => podIdentity(pod).instanceId ?? '').sort();
  return JSON.stringify(podIds) === JSON.stringify(records.map((record) => record.id).sort());
}
