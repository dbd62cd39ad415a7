import { describe, expect, it } from '@jest/globals';
import { KUBE_LABELS, MANAGED_BY } from './labels';
import { buildAppNetworkPolicy } from './network-policy.builder';

const orchestrator = {
  namespaceLabels: { 'kubernetes.io/metadata.name': 'livepeer' },
  podLabels: { app: 'livepeer-node' },
};

describe('buildAppNetworkPolicy', () => {
  it('admits only the orchestrator pods on the app port and denies all egress by default', () => {
    const policy = buildAppNetworkPolicy({
      namespace: 'apps',
      app: 'demo',
      port: 8080,
      egress: 'none',
      orchestrator,
    });
    expect(policy.metadata?.name).toBe('sandbox-app-demo');
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { [KUBE_LABELS.managedBy]: MANAGED_BY, [KUBE_LABELS.app]: 'demo' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          _from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'livepeer' } },
              podSelector: { matchLabels: { app: 'livepeer-node' } },
            },
          ],
          ports: [{ protocol: 'TCP', port: 8080 }],
        },
      ],
      egress: [],
    });
  });

  it('allows internet egress to public addresses only, never cluster, node or link-local ones', () => {
    const policy = buildAppNetworkPolicy({
      namespace: 'apps',
      app: 'demo',
      port: 8080,
      egress: 'internet',
      orchestrator,
      clusterCidrs: ['203.0.113.7/32', '10.42.0.0/16', '2001:db8:1::5/128'],
    });
    const [rule] = policy.spec?.egress ?? [];
    const [v4, v6] = rule?.to ?? [];
    expect(v4?.ipBlock?.cidr).toBe('0.0.0.0/0');
    expect(v4?.ipBlock?.except).toEqual(
      expect.arrayContaining([
        '10.0.0.0/8',
        '172.16.0.0/12',
        '192.168.0.0/16',
        '169.254.0.0/16',
        '127.0.0.0/8',
        '100.64.0.0/10',
        '203.0.113.7/32',
      ]),
    );
    expect(v4?.ipBlock?.except?.filter((cidr) => cidr === '10.42.0.0/16')).toHaveLength(1);
    expect(v6?.ipBlock?.cidr).toBe('::/0');
    expect(v6?.ipBlock?.except).toEqual(
      expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128', '2001:db8:1::5/128']),
    );
    expect(v4?.ipBlock?.except?.some((cidr) => cidr.includes(':'))).toBe(false);
  });
});
