import type { V1NetworkPolicy, V1Node, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  KUBE_LABELS,
  KubeForbiddenError,
  KubeInvalidError,
  MANAGED_BY,
  buildAppNetworkPolicy,
  buildInstancePod,
  nodeAddressCidrs,
  instancePodName,
  appNetworkPolicyName,
  podIdentity,
  podInstanceUrl,
  podRuntimeState,
} from '@sandbox/kube';
import type { KubeApi, OrchestratorSelector, ResilientInformer } from '@sandbox/kube';
import type { AppSpec, InstanceLogLine } from '@sandbox/protocol';
import type { Clock } from '@sandbox/service-kit';
import type { HostInstance, InstanceRef, RuntimeDriver } from './runtime-driver';
import { InstanceRefusedError } from './runtime-driver';
import { createNetworkPolicyKeeper } from './network-policy-keeper';
import { createPodWatch } from './pod-watch';

/** Dependencies of {@link createKubernetesRuntime}. */
export interface KubernetesRuntimeDeps {
  api: KubeApi;
  /** Pods of the apps namespace with our managed-by label. */
  informer: ResilientInformer<V1Pod>;
  /** NetworkPolicies of the apps namespace with our managed-by label. */
  policyInformer: ResilientInformer<V1NetworkPolicy>;
  /** The cluster's Nodes: their addresses are kept out of every app's egress. */
  nodeInformer: ResilientInformer<V1Node>;
  logger: Pick<Logger, 'warn' | 'error'>;
  namespace: string;
  runtimeClassName: string;
  orchestrator: OrchestratorSelector;
  clusterCidrs: readonly string[];
  dnsServers: readonly string[];
  clock: Pick<Clock, 'now' | 'sleep'>;
}

/** `<RFC 3339 time> <text>` lines of the kubelet's timestamped log into log lines. */
export function parsePodLog(text: string): InstanceLogLine[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const space = line.indexOf(' ');
      return space < 0
        ? { time: line, stream: 'stdout' as const, text: '' }
        : { time: line.slice(0, space), stream: 'stdout' as const, text: line.slice(space + 1) };
    });
}

/** The API server's refusal of an instance's pod as the reason the instance failed (else unchanged). */
function refusal(error: unknown): unknown {
  if (error instanceof KubeInvalidError) return new InstanceRefusedError(`pod rejected: ${error.reason}`);
  if (error instanceof KubeForbiddenError) return new InstanceRefusedError(error.message);
  return error;
}

/**
 * {@link RuntimeDriver} on Kubernetes: one Pod per instance (built by `@sandbox/kube`), one
 * NetworkPolicy per app. Everything is read from the informers' caches and learnt from their events:
 * readiness is a pod event, a drifted policy is an event that queues its app. Writes are forced
 * server-side applies as field manager `instance-manager`. The instance URL is the pod IP and app
 * port, known once the pod is Ready.
 */
export function createKubernetesRuntime(deps: KubernetesRuntimeDeps): RuntimeDriver {
  const { api, informer, namespace } = deps;
  const apps = new Map<string, AppSpec>();
  const keeper = createNetworkPolicyKeeper({
    api,
    informer: deps.policyInformer,
    namespace,
    logger: deps.logger,
    desiredPolicy: (app) => {
      const spec = apps.get(app);
      return spec && policyOf(app, spec);
    },
  });
  const policyOf = (app: string, spec: AppSpec) =>
    buildAppNetworkPolicy({
      namespace,
      app,
      port: spec.port,
      egress: spec.egress,
      orchestrator: deps.orchestrator,
      // Learned from the Node objects as well as configured, so a node added later is excluded too.
      clusterCidrs: [...deps.clusterCidrs, ...nodeAddressCidrs(deps.nodeInformer.list())],
    });
  // A node came, went or changed address: every app's policy is an input short.
  for (const verb of ['add', 'update', 'delete'] as const) deps.nodeInformer.on(verb, keeper.requeueAll);
  const pods = createPodWatch({ informer, clock: deps.clock });
  const managed = () =>
    informer.list().filter((pod) => pod.metadata?.labels?.[KUBE_LABELS.managedBy] === MANAGED_BY);
  /** By name from the cache when the app is known (the pod is named after it), else by label. */
  const podOf = (instance: InstanceRef) =>
    instance.app !== undefined
      ? informer.get(instancePodName(instance.app, instance.instanceId), namespace)
      : managed().find((pod) => podIdentity(pod).instanceId === instance.instanceId);

  return {
    name: 'kubernetes',
    open: async () => {
      informer.start();
      deps.policyInformer.start();
      deps.nodeInformer.start();
    },
    close: async () => {
      await keeper.close();
      await Promise.all([informer.stop(), deps.policyInformer.stop(), deps.nodeInformer.stop()]);
    },
    synced: () => informer.synced() && deps.policyInformer.synced() && deps.nodeInformer.synced(),
    watch: pods.onInstanceChange,
    async ensureApp(app, spec) {
      apps.set(app, spec);
      await keeper.ensure(app);
    },
    async removeApp(app) {
      apps.delete(app);
      keeper.forget(app);
      await api.deleteNetworkPolicy(appNetworkPolicyName(app));
    },
    async start(request) {
      const pod = buildInstancePod({
        namespace,
        app: request.app,
        instanceId: request.instanceId,
        templateHash: request.templateHash,
        spec: request.spec,
        runtimeClassName: deps.runtimeClassName,
        dnsServers: deps.dnsServers,
      });
      await api.applyPod(pod).catch((error: unknown) => Promise.reject(refusal(error)));
      return {};
    },
    waitForReady: (instance, spec, options) =>
      pods.waitForReady(instance.instanceId, podOf(instance), spec.port, options.timeoutMs),
    async stop(instance) {
      const app = instance.app ?? podIdentity(podOf(instance) ?? {}).app;
      if (app) await api.deletePod(instancePodName(app, instance.instanceId));
    },
    async list(): Promise<HostInstance[]> {
      return managed().flatMap((pod) => {
        const { app, instanceId } = podIdentity(pod);
        if (!instanceId) return [];
        const port = pod.spec?.containers[0]?.ports?.[0]?.containerPort;
        const url = port === undefined ? undefined : podInstanceUrl(pod, port);
        return [
          { instanceId, status: podRuntimeState(pod), ...(app ? { app } : {}), ...(url ? { url } : {}) },
        ];
      });
    },
    async logs(instance, tail) {
      const name = podOf(instance)?.metadata?.name ?? nameOf(instance);
      if (!name) return undefined;
      return parsePodLog(await api.readPodLog(name, tail));
    },
  };
}

/** The pod name of an instance whose app is known. */
function nameOf(instance: InstanceRef): string | undefined {
  return instance.app === undefined ? undefined : instancePodName(instance.app, instance.instanceId);
}
