import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KUBE_MODULE_DIR, kubeVersions, versionLdflags } from './kube-versions';

const GO_MOD = `module example

tool (
	go.etcd.io/etcd/server/v3
	k8s.io/kubernetes/cmd/kube-apiserver
)

require (
	go.etcd.io/etcd/server/v3 v3.7.0 // indirect
	k8s.io/kubernetes v1.37.2 // indirect
	sigs.k8s.io/kustomize/kustomize/v5 v5.8.1 // indirect
)
`;

describe('kube versions', () => {
  it('reads the pinned versions from a go.mod, not from its tool block', () => {
    expect(kubeVersions(GO_MOD, 'sum')).toMatchObject({
      kubernetes: 'v1.37.2',
      etcd: 'v3.7.0',
      kustomize: 'v5.8.1',
    });
  });

  it('keys a build by the Kubernetes version and the go.sum digest', () => {
    const first = kubeVersions(GO_MOD, 'a h1:1\n').buildKey;
    expect(first).toMatch(/^v1\.37\.2-[0-9a-f]{12}$/);
    expect(kubeVersions(GO_MOD, 'a h1:1\n').buildKey).toBe(first);
    expect(kubeVersions(GO_MOD, 'a h1:2\n').buildKey).not.toBe(first);
  });

  it('refuses a go.mod that does not pin kube-apiserver', () => {
    expect(() => kubeVersions('module x\n', '')).toThrow('k8s.io/kubernetes');
  });

  it('pins our module to a release whose staging modules are replaced by the same release', async () => {
    const goMod = await readFile(join(KUBE_MODULE_DIR, 'go.mod'), 'utf8');
    const { kubernetes } = kubeVersions(goMod, '');
    const staging = kubernetes.replace(/^v1\./, 'v0.');
    const replaced = [...goMod.matchAll(/^\s*(k8s\.io\/\S+) => \1 (v\S+)$/gm)];
    expect(replaced.length).toBeGreaterThan(20);
    expect(replaced.filter((match) => match[2] !== staging)).toEqual([]);
    expect(replaced.map((match) => match[1])).toEqual(
      expect.arrayContaining(['k8s.io/api', 'k8s.io/apiserver']),
    );
  });

  it('stamps the release version the way the upstream build does', () => {
    const flags = versionLdflags('v1.37.2');
    expect(flags).toContain('-X k8s.io/component-base/version.gitVersion=v1.37.2');
    expect(flags).toContain('-X k8s.io/component-base/version.gitMinor=37');
    expect(() => versionLdflags('main')).toThrow('not a Kubernetes release');
  });
});
