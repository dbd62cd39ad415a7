import { describe, expect, it } from '@jest/globals';
import { buildAppNetworkPolicy } from './network-policy.builder';
import { networkPolicyApplyBody, networkPolicyDrifted } from './network-policy-drift';
import { nodeAddressCidrs } from './network-ranges';

const built = buildAppNetworkPolicy({
  namespace: 'apps',
  app: 'demo',
  port: 8080,
  egress: 'none',
  orchestrator: { namespaceLabels: { ns: 'system' }, podLabels: { app: 'node' } },
});

/** The policy as the API server hands it back: wire field names, empty lists dropped, extra metadata. */
function asStored(): typeof built {
  const wire = JSON.parse(JSON.stringify(built).replaceAll('"_from"', '"from"')) as typeof built;
  if (wire.spec) delete wire.spec.egress;
  return { ...wire, metadata: { ...wire.metadata, resourceVersion: '7', labels: { extra: 'x' } } };
}

describe('networkPolicyDrifted', () => {
  it('sees no drift in the policy as stored and read back', () => {
    expect(networkPolicyDrifted(asStored(), built)).toBe(false);
  });

  it('sees a deleted policy and an edited one as drifted', () => {
    expect(networkPolicyDrifted(undefined, built)).toBe(true);
    const opened = asStored();
    if (opened.spec) opened.spec.egress = [{}];
    expect(networkPolicyDrifted(opened, built)).toBe(true);
    const otherPort = asStored();
    const port = otherPort.spec?.ingress?.[0]?.ports?.[0];
    if (port) port.port = 9999;
    expect(networkPolicyDrifted(otherPort, built)).toBe(true);
  });
});

describe('nodeAddressCidrs', () => {
  it('keeps the internal and external addresses of every node as single-address ranges', () => {
    const nodes = [
      {
        status: {
          addresses: [
            { type: 'InternalIP', address: '10.0.0.5' },
            { type: 'Hostname', address: 'n1' },
          ],
        },
      },
      {
        status: {
          addresses: [
            { type: 'ExternalIP', address: '203.0.113.8' },
            { type: 'InternalIP', address: 'fd00::5' },
          ],
        },
      },
      {},
    ];
    expect(nodeAddressCidrs(nodes)).toEqual(['10.0.0.5/32', '203.0.113.8/32', 'fd00::5/128']);
  });
});

describe('networkPolicyApplyBody', () => {
  it('sends an empty rule list only to take back one someone else filled', () => {
    expect(built.spec?.egress).toEqual([]);
    expect(networkPolicyApplyBody(built, undefined).spec).not.toHaveProperty('egress');
    expect(networkPolicyApplyBody(built, asStored()).spec).not.toHaveProperty('egress');
    const opened = asStored();
    if (opened.spec) opened.spec.egress = [{}];
    expect(networkPolicyApplyBody(built, opened).spec?.egress).toEqual([]);
    expect(networkPolicyApplyBody(built, opened).spec?.ingress).toEqual(built.spec?.ingress);
  });
});
