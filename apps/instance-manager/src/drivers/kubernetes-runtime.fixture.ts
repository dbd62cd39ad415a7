import type { V1NetworkPolicy, V1Node, V1Pod } from '@kubernetes/client-node';
import type { KubeApi, ResilientInformer } from '@sandbox/kube';
import { createKubernetesRuntime } from './kubernetes-runtime';

/** The status the kubelet reports once the app container runs and passes its probe. */
export function markReady(pod: V1Pod | undefined): void {
  if (!pod) throw new Error('no pod');
  pod.status = {
    phase: 'Running',
    podIP: '10.42.0.9',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [
      { name: 'app', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
    ],
  };
}

/** A fake informer over `objects`: tests fire its events as the watch would. */
function fakeInformer<T extends { metadata?: { name?: string } }>(objects: () => T[]) {
  const handlers: { verb: string; callback: (object: T) => void }[] = [];
  const informer: ResilientInformer<T> = {
    on: (verb, callback) => void handlers.push({ verb, callback }),
    start: () => undefined,
    stop: async () => undefined,
    synced: () => true,
    list: () => objects(),
    get: (name) => objects().find((object) => object.metadata?.name === name),
    restarts: () => 0,
  };
  const fire = (verb: 'add' | 'update' | 'delete', object: T) =>
    handlers.filter((handler) => handler.verb === verb).forEach((handler) => handler.callback(object));
  return { informer, fire };
}

/** The API as a recorder; pods it applies appear in the informer's cache (as the watch would add them). */
export function fakeCluster(failures: { applyPod?: unknown; applyNetworkPolicy?: unknown[] } = {}) {
  const pods: V1Pod[] = [];
  const calls: string[] = [];
  const policies: V1NetworkPolicy[] = [];
  /** What the policy informer's cache holds; tests change it behind the runtime's back. */
  const inCluster = new Map<string, V1NetworkPolicy>();
  const podWatch = fakeInformer(() => pods);
  const policyWatch = fakeInformer(() => [...inCluster.values()]);
  const api: KubeApi = {
    async applyPod(pod) {
      if (failures.applyPod) throw failures.applyPod;
      calls.push(`create ${pod.metadata?.name}`);
      pods.push(structuredClone(pod));
      podWatch.fire('add', pods[pods.length - 1] ?? pod);
      return pod;
    },
    async deletePod(name) {
      calls.push(`delete ${name}`);
      const index = pods.findIndex((pod) => pod.metadata?.name === name);
      if (index >= 0) pods.splice(index, 1);
      return index >= 0 ? 'deleted' : 'absent';
    },
    async readPodLog(name, tail) {
      calls.push(`logs ${name} ${tail}`);
      return '2026-01-01T00:00:00.000000001Z listening\n2026-01-01T00:00:01Z second line\n';
    },
    async applyNetworkPolicy(policy) {
      const failure = failures.applyNetworkPolicy?.shift();
      if (failure) throw failure;
      policies.push(policy);
      // As the API server stores it: an empty rule list is not kept.
      const stored = structuredClone(policy);
      if (stored.spec?.egress?.length === 0) delete stored.spec.egress;
      inCluster.set(policy.metadata?.name ?? '', stored);
      return stored;
    },
    async deleteNetworkPolicy(name) {
      calls.push(`delete policy ${name}`);
      return 'deleted';
    },
  };
  const nodes: V1Node[] = [];
  const nodeWatch = fakeInformer(() => nodes);
  /** A node joining, as the node watch reports it. */
  const addNode = (address: string) => {
    nodes.push({ status: { addresses: [{ type: 'InternalIP', address }] } });
    nodeWatch.fire('add', nodes[nodes.length - 1] ?? {});
  };
  /** The watch reporting a change someone else made. */
  const fire = (verb: 'update' | 'delete', policy: V1NetworkPolicy) => policyWatch.fire(verb, policy);
  let now = 0;
  const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) };
  const runtime = createKubernetesRuntime({
    api,
    informer: podWatch.informer,
    policyInformer: policyWatch.informer,
    nodeInformer: nodeWatch.informer,
    logger: { warn: () => undefined, error: () => undefined },
    namespace: 'apps',
    runtimeClassName: 'gvisor',
    orchestrator: { namespaceLabels: { ns: 'livepeer' }, podLabels: { app: 'node' } },
    clusterCidrs: ['203.0.113.9/32'],
    dnsServers: [],
    clock,
  });
  /** The kubelet reporting the pod Ready, as the pod watch delivers it. */
  const becomeReady = (pod: V1Pod | undefined) => {
    markReady(pod);
    if (pod) podWatch.fire('update', pod);
  };
  return { runtime, pods, calls, policies, inCluster, fire, addNode, becomeReady, firePod: podWatch.fire };
}
