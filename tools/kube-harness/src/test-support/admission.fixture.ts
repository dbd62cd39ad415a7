import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { buildInstancePod } from '@sandbox/kube';
import { exampleAppSpec } from './app-spec.fixture';
import { DEPLOY } from './deployed-harness.fixture';

/** A pod whose spec is known to be there. */
export type PodWithSpec = V1Pod & { spec: NonNullable<V1Pod['spec']> };

let counter = 0;

/** One of our own instance pods, as instance-manager builds it, with a fresh name. */
export function ourPod(egress: 'none' | 'internet' = 'none'): V1Pod {
  counter += 1;
  return buildInstancePod({
    namespace: DEPLOY.appsNamespace,
    app: 'demo',
    instanceId: `inst${String(counter).padStart(6, '0')}`,
    templateHash: 'abc123',
    spec: exampleAppSpec('localhost/sandbox-example-app:test', { egress }),
    dnsServers: ['9.9.9.9'],
  });
}

/** Our pod with one change applied to a deep copy. */
export function shaped(change: (pod: PodWithSpec) => void): V1Pod {
  const pod = structuredClone(ourPod());
  if (!pod.spec) throw new Error('built pod has no spec');
  change(pod as PodWithSpec);
  return pod;
}

/** The app container of a built pod. */
export function app(pod: PodWithSpec): V1Container {
  const container = pod.spec.containers[0];
  if (!container) throw new Error('built pod has no container');
  return container;
}
