import type { V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  KUBE_LABELS,
  MANAGED_BY,
  buildAppNetworkPolicy,
  buildInstancePod,
  instancePodName,
  appNetworkPolicyName,
  isPodReady,
  podIdentity,
  podInstanceUrl,
  podRuntimeState,
} from '@sandbox/kube';
import type { KubeApi, OrchestratorSelector, ResilientInformer } from '@sandbox/kube';
import type { InstanceLogLine } from '@sandbox/protocol';
import type { Clock } from '../clock';
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
  logger: Pick<Logger, 'warn' | 'error'>;
  namespace: string;
  runtimeClassName: string;
  orchestrator: OrchestratorSelector;
  clusterCidrs: readonly string[];
  dnsServers: readonly string[];
  clock: Clock;
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
  const managed = () =>
    informer.list().filter((pod) => pod.metadata?.labels?.[KUBE_LABELS.managedBy] === MANAGED_BY);
  const podOf = (instanceId: string) => managed().find((pod) => podIdentity(pod).instanceId === instanceId);

  return {
    name: 'kubernetes',
    open: async () => {
      informer.start();
      deps.policyInformer.start();
    },
    close: async () => {
      await keeper.close();
      await Promise.all([informer.stop(), deps.policyInformer.stop()]);
    },
    synced: () => informer.synced() && deps.policyInformer.synced(),
    async ensureApp(app, spec) {
      const policy = buildAppNetworkPolicy({
        namespace: deps.namespace,
        app,
        port: spec.port,
        egress: spec.egress,
        orchestrator: deps.orchestrator,
        clusterCidrs: deps.clusterCidrs,
      });
      await keeper.ensure(app, policy);
    },
    async removeApp(app) {
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
