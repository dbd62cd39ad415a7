import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Our Go module (go.mod, go.sum) that names the Kubernetes, etcd and kustomize versions to build. */
export const KUBE_MODULE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'go');

/** The versions a go.mod pins, and the cache key of one build of them. */
export interface KubeVersions {
  /** `k8s.io/kubernetes`, e.g. `v1.37.2`. */
  kubernetes: string;
  /** `go.etcd.io/etcd/server/v3`, e.g. `v3.7.0`. */
  etcd: string;
  /** `sigs.k8s.io/kustomize/kustomize/v5`, e.g. `v5.8.1`. */
  kustomize: string;
  /** `<kubernetes>-<first 12 hex of sha256(go.sum)>`: any change of a dependency makes a new build. */
  buildKey: string;
}

function required(goMod: string, module: string): string {
  const escaped = module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const version = new RegExp(`^[ \\t]*(?:require[ \\t]+)?${escaped}[ \\t]+(v\\S+)`, 'm').exec(goMod)?.[1];
  if (!version) throw new Error(`go.mod does not require ${module}`);
  return version;
}

/** Reads the pinned versions from go.mod and derives the build key from go.sum. */
export function kubeVersions(goMod: string, goSum: string): KubeVersions {
  const kubernetes = required(goMod, 'k8s.io/kubernetes');
  const digest = createHash('sha256').update(goSum).digest('hex').slice(0, 12);
  return {
    kubernetes,
    etcd: required(goMod, 'go.etcd.io/etcd/server/v3'),
    kustomize: required(goMod, 'sigs.k8s.io/kustomize/kustomize/v5'),
    buildKey: `${kubernetes}-${digest}`,
  };
}

/**
 * Linker flags that stamp the Kubernetes version into kube-apiserver, as the upstream release build
 * does; without them `/version` reports `v0.0.0-master`. Unknown symbols are ignored by the linker,
 * so the same flags are harmless for etcd and kustomize.
 */
export function versionLdflags(kubernetes: string): string {
  const match = /^v(\d+)\.(\d+)\./.exec(kubernetes);
  if (!match) throw new Error(`not a Kubernetes release version: ${kubernetes}`);
  const pkg = 'k8s.io/component-base/version';
  return [
    `-X ${pkg}.gitVersion=${kubernetes}`,
    `-X ${pkg}.gitMajor=${match[1]}`,
    `-X ${pkg}.gitMinor=${match[2]}`,
    `-X ${pkg}.gitTreeState=clean`,
  ].join(' ');
}
