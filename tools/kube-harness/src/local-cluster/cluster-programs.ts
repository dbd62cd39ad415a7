import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HARNESS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One program of the local cluster, built with `go build` from one of our tool-only Go modules. */
export interface ClusterProgram {
  /** File name in the cache (and the name the cluster runs it by). */
  name: string;
  moduleDir: string;
  /** The package `go build` builds. */
  packagePath: string;
  /** Build tags. @defaultValue none */
  tags?: readonly string[];
  /** Extra linker flags (version stamps); `-s -w` are always there. */
  ldflags?: string;
  /**
   * gVisor's shim only: built from a copy of the gVisor module whose shim leaves its OOM score
   * alone (see {@link shimVariant}).
   */
  patchOomScore?: boolean;
}

const KUBE = join(HARNESS_DIR, 'go');
const K8S_VERSION_PKG = 'k8s.io/component-base/version';

/** Version stamps of a Kubernetes component, as the upstream release build sets them. */
export function kubeLdflags(version: string): string {
  const [, major = '', minor = ''] = /^v(\d+)\.(\d+)\./.exec(version) ?? [];
  return [
    `-X ${K8S_VERSION_PKG}.gitVersion=${version}`,
    `-X ${K8S_VERSION_PKG}.gitMajor=${major}`,
    `-X ${K8S_VERSION_PKG}.gitMinor=${minor}`,
    `-X ${K8S_VERSION_PKG}.gitTreeState=clean`,
  ].join(' ');
}

/** containerd is built without the snapshotters that need cgo or kernel features we never use. */
export const CONTAINERD_TAGS = ['no_btrfs', 'no_devmapper', 'no_zfs'] as const;

/** Everything a node of the local cluster runs besides the control plane of `ensureKubeBinaries`. */
export function clusterPrograms(kubernetesVersion: string): ClusterProgram[] {
  const kube = (name: string): ClusterProgram => ({
    name,
    moduleDir: KUBE,
    packagePath: `k8s.io/kubernetes/cmd/${name}`,
    ldflags: kubeLdflags(kubernetesVersion),
  });
  const containerd = join(HARNESS_DIR, 'containerd');
  return [
    kube('kubelet'),
    kube('kube-controller-manager'),
    kube('kube-scheduler'),
    kube('kube-proxy'),
    kube('kubectl'),
    {
      name: 'containerd',
      moduleDir: containerd,
      packagePath: 'github.com/containerd/containerd/v2/cmd/containerd',
      tags: CONTAINERD_TAGS,
    },
    {
      name: 'ctr',
      moduleDir: containerd,
      packagePath: 'github.com/containerd/containerd/v2/cmd/ctr',
      tags: CONTAINERD_TAGS,
    },
    {
      name: 'containerd-shim-runsc-v1',
      moduleDir: join(HARNESS_DIR, 'gvisor-shim'),
      packagePath: 'gvisor.dev/gvisor/shim',
    },
    {
      name: 'coredns',
      moduleDir: join(HARNESS_DIR, 'coredns'),
      packagePath: 'github.com/coredns/coredns',
    },
    {
      name: 'kube-router',
      moduleDir: join(HARNESS_DIR, 'kube-router'),
      packagePath: 'github.com/cloudnativelabs/kube-router/v2/cmd/kube-router',
    },
  ];
}

/** CAP_SYS_RESOURCE is bit 24 of a capability mask. */
const CAP_SYS_RESOURCE_BIT = 24n;

/** True when the `CapBnd:` line of /proc/self/status includes CAP_SYS_RESOURCE. */
export function hasSysResource(procStatus: string): boolean {
  const mask = /^CapBnd:\s*([0-9a-f]+)$/m.exec(procStatus)?.[1];
  if (!mask) return false;
  return ((BigInt(`0x${mask}`) >> CAP_SYS_RESOURCE_BIT) & 1n) === 1n;
}

/**
 * Which gVisor shim this host needs: `upstream` where root may lower OOM scores, `oom-score-0`
 * where CAP_SYS_RESOURCE is withheld (the shim then keeps score 0 instead of failing to start).
 */
export function shimVariant(procStatus: string): 'upstream' | 'oom-score-0' {
  return hasSysResource(procStatus) ? 'upstream' : 'oom-score-0';
}

/** The one line the `oom-score-0` variant changes in gVisor's `pkg/shim/v1/manager.go`. */
export function patchShimManager(source: string): string {
  const patched = source.replace(/^(\s*oomScoreMax\s*=\s*)-999\b/m, '$10');
  if (patched === source) throw new Error('gVisor shim: oomScoreMax = -999 not found in manager.go');
  return patched;
}
