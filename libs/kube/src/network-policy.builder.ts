import type { V1NetworkPolicy, V1NetworkPolicyEgressRule } from '@kubernetes/client-node';
import type { Egress } from '@sandbox/protocol';
import { KUBE_LABELS, MANAGED_BY, appNetworkPolicyName } from './labels';
import { NON_PUBLIC_IPV4_RANGES, NON_PUBLIC_IPV6_RANGES } from '@sandbox/protocol';
import { isIpv6Cidr } from './network-ranges';

/** Where the orchestrator's pods are: the only peers allowed to open connections to an app. */
export interface OrchestratorSelector {
  /** Labels of the orchestrator's namespace (`kubernetes.io/metadata.name` selects one by name). */
  namespaceLabels: Record<string, string>;
  podLabels: Record<string, string>;
}

/** Input of {@link buildAppNetworkPolicy}. */
export interface AppNetworkPolicyInput {
  namespace: string;
  app: string;
  port: number;
  egress: Egress;
  orchestrator: OrchestratorSelector;
  /**
   * Cluster ranges and node addresses (as /32 or /128) that egress must never reach even when they are
   * public: the pod and service CIDRs and every node address (policies see traffic after DNAT, so the
   * API server appears as a node address). @defaultValue []
   */
  clusterCidrs?: readonly string[];
}

function internetEgress(clusterCidrs: readonly string[]): V1NetworkPolicyEgressRule {
  const v4 = [...NON_PUBLIC_IPV4_RANGES, ...clusterCidrs.filter((cidr) => !isIpv6Cidr(cidr))];
  const v6 = [...NON_PUBLIC_IPV6_RANGES, ...clusterCidrs.filter(isIpv6Cidr)];
  return {
    to: [
      { ipBlock: { cidr: '0.0.0.0/0', except: [...new Set(v4)] } },
      { ipBlock: { cidr: '::/0', except: [...new Set(v6)] } },
    ],
  };
}

/**
 * One NetworkPolicy per app, selecting its pods: ingress only from the orchestrator's pods on the app
 * port; egress nothing (`none`) or public addresses only (`internet`), never private, link-local,
 * cluster or node addresses.
 */
export function buildAppNetworkPolicy(input: AppNetworkPolicyInput): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: appNetworkPolicyName(input.app),
      namespace: input.namespace,
      labels: { [KUBE_LABELS.managedBy]: MANAGED_BY, [KUBE_LABELS.app]: input.app },
    },
    spec: {
      podSelector: { matchLabels: { [KUBE_LABELS.managedBy]: MANAGED_BY, [KUBE_LABELS.app]: input.app } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          _from: [
            {
              namespaceSelector: { matchLabels: { ...input.orchestrator.namespaceLabels } },
              podSelector: { matchLabels: { ...input.orchestrator.podLabels } },
            },
          ],
          ports: [{ protocol: 'TCP', port: input.port }],
        },
      ],
      egress: input.egress === 'internet' ? [internetEgress(input.clusterCidrs ?? [])] : [],
    },
  };
}
