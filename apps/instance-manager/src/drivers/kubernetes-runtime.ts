import type { V1NetworkPolicy, V1Node, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  KUBE_LABELS,
  MANAGED_BY,
  buildAppNetworkPolicy,
  buildInstancePod,
  nodeAddressCidrs,
  instancePodName,
  appNetworkPolicyName,
  isPodReady,
  podIdentity,
  podInstanceUrl,
  podRuntimeState,
} from '@sandbox/kube';
import type { KubeApi, OrchestratorSelector, ResilientInformer } from '@sandbox/kube';
import type { AppSpec, InstanceLogLine } from '@sandbox/protocol';
import type { Clock } from '@sandbox/service-kit';
import type { HostInstance, RuntimeDriver } from './runtime-driver';
import { createNetworkPolicyKeeper } from './network-policy-keeper';
import { InstanceNotReadyError } from './runtime-driver';

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

/**
 * {@link RuntimeDriver} on Kubernetes: one Pod per instance (built by `@sandbox/kube`), one
 * NetworkPolicy per app; what runs is read from the pod informer's cache. The instance URL is the pod
 * IP and app port, known once the pod is Ready.
 */
export function createKubernetesRuntime(deps: KubernetesRuntimeDeps): RuntimeDriver {
  const { api, informer, clock } = deps;
  const keeper = createNetworkPolicyKeeper({
    api,
    informer: deps.policyInformer,
    clock,
    logger: deps.logger,
  });
  const apps = new Map<string, AppSpec>();
  const policyOf = (app: string, spec: AppSpec) =>
    buildAppNetworkPolicy({
      namespace: deps.namespace,
      app,
      port: spec.port,
      egress: spec.egress,
      orchestrator: deps.orchestrator,
      // Learned from the Node objects as well as configured, so a node added later is excluded too.
      clusterCidrs: [...deps.clusterCidrs, ...nodeAddressCidrs(deps.nodeInformer.list())],
    });
  /** A node came, went or changed address: every app's policy follows. */
  const reapplyAll = () => {
    for (const [app, spec] of apps)
      keeper.ensure(app, policyOf(app, spec)).catch((error: unknown) => {
        deps.logger.error({ app, err: error }, 'updating the app NetworkPolicy for node addresses failed');
      });
  };
  for (const verb of ['add', 'update', 'delete'] as const) deps.nodeInformer.on(verb, reapplyAll);
  const managed = () =>
    informer.list().filter((pod) => pod.metadata?.labels?.[KUBE_LABELS.managedBy] === MANAGED_BY);
  const podOf = (instanceId: string) => managed().find((pod) => podIdentity(pod).instanceId === instanceId);

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
    async ensureApp(app, spec) {
      apps.set(app, spec);
      await keeper.ensure(app, policyOf(app, spec));
    },
    async removeApp(app) {
      apps.delete(app);
      keeper.forget(app);
      await api.deleteNetworkPolicy(appNetworkPolicyName(app));
    },
    async start(request) {
      const pod = buildInstancePod({
        namespace: deps.namespace,
        app: request.app,
        instanceId: request.instanceId,
        templateHash: request.templateHash,
        spec: request.spec,
        runtimeClassName: deps.runtimeClassName,
        dnsServers: deps.dnsServers,
      });
      await api.createPod(pod);
      return {};
    },
    async waitForReady(instance, spec, options) {
      const deadline = clock.now() + options.timeoutMs;
      for (;;) {
        const pod = podOf(instance.instanceId);
        if (pod && podRuntimeState(pod) === 'failed') throw new InstanceNotReadyError('exited');
        const url = pod && isPodReady(pod) ? podInstanceUrl(pod, spec.port) : undefined;
        if (url) return { url };
        if (clock.now() + options.intervalMs > deadline) throw new InstanceNotReadyError('timeout');
        await clock.sleep(options.intervalMs);
      }
    },
    async stop(instance) {
      const app = instance.app ?? podIdentity(podOf(instance.instanceId) ?? {}).app;
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
      const pod = podOf(instance.instanceId);
      const name =
        pod?.metadata?.name ??
        (instance.app ? instancePodName(instance.app, instance.instanceId) : undefined);
      if (!name) return undefined;
      return parsePodLog(await api.readPodLog(name, tail));
    },
  };
}
