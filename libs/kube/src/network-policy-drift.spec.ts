import { describe, expect, it } from '@jest/globals';
import { buildAppNetworkPolicy } from './network-policy.builder';
import { networkPolicyDrifted } from './network-policy-drift';

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
