import { pinResolver } from './pin-resolver';

const PINNED = [
  'apiVersion: kustomize.config.k8s.io/v1beta1',
  'kind: Kustomization',
  'resources:',
  '  - ../deploy/k3d',
  'images:',
  "  - name: localhost/sandbox-adapter\n    newTag: 'abc'",
  '',
].join('\n');

describe('pinResolver', () => {
  it('appends one strategic-merge patch setting the instance-manager resolver', () => {
    const pinned = pinResolver(PINNED, '100.128.0.10');
    expect(pinned.startsWith(PINNED.trimEnd())).toBe(true);
    const patchLine = pinned.split('\n').at(-2) ?? '';
    expect(pinned.split('\n').slice(-4, -2)).toEqual(['patches:', '  - patch: |-']);
    expect(JSON.parse(patchLine.trim())).toMatchObject({
      kind: 'Deployment',
      metadata: { name: 'instance-manager', namespace: 'sandbox-system' },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'instance-manager', env: [{ name: 'KUBE_DNS_SERVERS', value: '100.128.0.10' }] },
            ],
          },
        },
      },
    });
  });

  it('refuses a second patches key and a resolver that is not an IPv4 address', () => {
    expect(() => pinResolver(pinResolver(PINNED, '1.1.1.1'), '1.1.1.1')).toThrow('already has patches');
    expect(() => pinResolver(PINNED, 'dns.example')).toThrow('not an IPv4 resolver: dns.example');
  });
});
