// The local-node provider: the harness's one-node Kubernetes cluster on this host (kubelet,
// containerd with gVisor's shim, kube-proxy, CoreDNS, kube-router's policy controller). Every pod runs
// under gVisor there, so the control of the gVisor check is the host's own kernel; the host reaches
// Services by their ClusterIP through kube-proxy (port-forward cannot enter a gVisor netstack); the
// node has no volume provisioner, so each claim gets a local PersistentVolume in the node's folder.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { release } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_NETWORK, startLocalCluster } from '@sandbox/kube-harness';
import type { Exec } from './exec';
import { startInternetStandIn } from './internet-stand-in';
import { createKubectl } from './kubectl';
import type { ClusterProvider, VolumeClaim } from './provider';

type Log = (line: string) => void;

/** A local PersistentVolume pre-bound to `claim`, in `dir` on `node`. */
export function localVolume(claim: VolumeClaim, dir: string, node: string) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `e2e-${claim.namespace}-${claim.name}`.slice(0, 253) },
    spec: {
      capacity: { storage: claim.storage },
      accessModes: claim.accessModes,
      persistentVolumeReclaimPolicy: 'Retain',
      claimRef: { namespace: claim.namespace, name: claim.name },
      local: { path: dir },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
          ],
        },
      },
    },
  };
}

/** Starts the local cluster (building its binaries on first use). */
export async function createLocalNodeProvider(exec: Exec, log: Log): Promise<ClusterProvider> {
  const cluster = await startLocalCluster();
  log(`ok   local node ${cluster.nodeName} up (pods ${cluster.podCidr}, Services ${cluster.serviceCidr})`);
  const internet = await startInternetStandIn(exec, CLUSTER_NETWORK.bridge).catch(async (error: unknown) => {
    await cluster.stop();
    throw error;
  });
  const kubectl = createKubectl(exec, cluster.kubectlPath, cluster.kubeconfigPath);
  return {
    name: 'local-node',
    kubectl,
    internet: { host: internet.host, port: internet.port, resolver: internet.resolver, name: internet.name },
    importImages: (archives) => cluster.importImages([...archives]),
    serviceUrl: async (namespace, service, port) => {
      const found = await kubectl.json<{ spec: { clusterIP?: string } }>([
        '-n',
        namespace,
        'get',
        'service',
        service,
      ]);
      const ip = found.spec.clusterIP;
      if (!ip || ip === 'None') throw new Error(`service ${namespace}/${service} has no ClusterIP`);
      return `http://${ip}:${port}`;
    },
    nodeKernel: async () => ({
      release: release(),
      version: (await readFile('/proc/version', 'utf8')).trim(),
    }),
    provideVolumes: async (claims) => {
      const volumes = [];
      for (const claim of claims) {
        const dir = join(cluster.dir, 'volumes', `${claim.namespace}-${claim.name}`);
        await mkdir(dir, { recursive: true, mode: 0o700 });
        volumes.push(localVolume(claim, dir, cluster.nodeName));
      }
      if (volumes.length === 0) return;
      const file = join(cluster.dir, 'volumes', 'volumes.json');
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: volumes }));
      await kubectl.run(['apply', '-f', file], { timeoutMs: 60_000 });
    },
    release: async () => {
      await internet.stop();
      await cluster.stop();
    },
  };
}
