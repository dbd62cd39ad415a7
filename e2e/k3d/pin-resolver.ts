// The provider's public resolver for `egress: internet` apps, as a patch on the pinned overlay: on
// k3d it is the one deploy/k3d names already; on the local node, the internet stand-in's.

/**
 * `kustomization` with a patch giving the instance-manager `resolver` as `KUBE_DNS_SERVERS`. The pinned
 * kustomization carries no patches of its own (the overlay's are under `resources`); appending a
 * second `patches` key would be invalid YAML, so one is refused.
 */
export function pinResolver(kustomization: string, resolver: string): string {
  if (/^patches:/m.test(kustomization)) throw new Error('the pinned kustomization already has patches');
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(resolver)) throw new Error(`not an IPv4 resolver: ${resolver}`);
  // JSON is YAML: the patch is one line in a block scalar, with no indentation to get wrong.
  const patch = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'instance-manager', namespace: 'sandbox-system' },
    spec: {
      template: {
        spec: {
          containers: [{ name: 'instance-manager', env: [{ name: 'KUBE_DNS_SERVERS', value: resolver }] }],
        },
      },
    },
  };
  return `${kustomization.trimEnd()}\npatches:\n  - patch: |-\n      ${JSON.stringify(patch)}\n`;
}
