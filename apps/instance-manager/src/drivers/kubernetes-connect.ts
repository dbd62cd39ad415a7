import type { V1Pod } from '@kubernetes/client-node';
import { MANAGED_POD_SELECTOR, connectKube, createResilientInformer } from '@sandbox/kube';
import type { ResilientInformerOptions } from '@sandbox/kube';
import type { Logger } from 'pino';
import type { Clock } from '@sandbox/service-kit';
import type { InstanceManagerConfig } from '../config';
import { createKubernetesRuntime } from './kubernetes-runtime';
import type { RuntimeDriver } from './runtime-driver';

/** Timing of the pod informer; the library's defaults unless given (tests shorten the silence). */
export type PodInformerTiming = Pick<
  ResilientInformerOptions<V1Pod>,
  'silenceMs' | 'initialBackoffMs' | 'maxBackoffMs'
>;

/**
 * Field manager of every server-side apply instance-manager makes. Persistent: the API server records
 * field ownership under this name, and a renamed manager would conflict with its old self.
 */
export const KUBE_FIELD_MANAGER = 'instance-manager';

/** The Kubernetes driver against the configured cluster and apps namespace. */
export function connectKubernetesRuntime(
  config: InstanceManagerConfig,
  logger: Logger,
  clock: Clock,
  informerTiming: PodInformerTiming = {},
): RuntimeDriver {
  const connection = connectKube({
    namespace: config.KUBE_NAMESPACE,
    fieldManager: KUBE_FIELD_MANAGER,
    ...(config.KUBECONFIG_PATH ? { kubeconfigPath: config.KUBECONFIG_PATH } : {}),
  });
  const informer = createResilientInformer({
    create: () => connection.createPodInformer(MANAGED_POD_SELECTOR),
    keyOf: (pod) => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
    logger,
    name: 'instance-pods',
    ...informerTiming,
  });
  const policyInformer = createResilientInformer({
    create: () => connection.createNetworkPolicyInformer(MANAGED_POD_SELECTOR),
    keyOf: (policy) => `${policy.metadata?.namespace ?? ''}/${policy.metadata?.name ?? ''}`,
    logger,
    name: 'app-network-policies',
    ...informerTiming,
  });
  const nodeInformer = createResilientInformer({
    create: () => connection.createNodeInformer(),
    keyOf: (node) => node.metadata?.name ?? '',
    logger,
    name: 'nodes',
    ...informerTiming,
  });
  return createKubernetesRuntime({
    api: connection.api,
    informer,
    policyInformer,
    nodeInformer,
    logger,
    namespace: config.KUBE_NAMESPACE,
    runtimeClassName: config.KUBE_RUNTIME_CLASS,
    orchestrator: {
      namespaceLabels: config.KUBE_ORCHESTRATOR_NAMESPACE_LABELS,
      podLabels: config.KUBE_ORCHESTRATOR_POD_LABELS,
    },
    clusterCidrs: config.KUBE_CLUSTER_CIDRS,
    dnsServers: config.KUBE_DNS_SERVERS,
    clock,
  });
}
