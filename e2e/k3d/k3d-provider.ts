// The k3d provider: a k3s-with-gVisor cluster in Docker. System pods run under runc there, so the
// instance-manager's pod is the control of the gVisor check; Services are reached by port-forward.
import { createCluster } from './cluster';
import { PUBLIC_TARGET } from './cluster-facts';
import type { Exec } from './exec';
import { SYSTEM_NAMESPACE } from './install';
import { createKubectl, type PortForward } from './kubectl';
import { ensureNodeImage } from './node-image';
import { podKernel } from './pod-probes';
import type { Tools } from './prerequisites';
import type { ClusterProvider } from './provider';

type Log = (line: string) => void;

/** Builds the node image if needed and creates the cluster. */
export async function createK3dProvider(exec: Exec, tools: Tools, log: Log): Promise<ClusterProvider> {
  const nodeImage = await ensureNodeImage(exec, log);
  log(`ok   node image ${nodeImage} (k3s with runsc and containerd-shim-runsc-v1)`);
  const cluster = await createCluster(exec, tools.k3d, nodeImage, log);
  const kubectl = createKubectl(exec, tools.kubectl, cluster.kubeconfig);
  const forwards: PortForward[] = [];
  return {
    name: 'k3d',
    kubectl,
    // Where Docker runs, the node's network reaches the internet: the real thing.
    internet: PUBLIC_TARGET,
    importImages: (archives) => cluster.importImages(archives),
    serviceUrl: async (namespace, service, port) => {
      const forward = await kubectl.portForward(namespace, `svc/${service}`, port);
      forwards.push(forward);
      return forward.url;
    },
    nodeKernel: async () => {
      const manager = await kubectl.json<{ items: { metadata: { name: string } }[] }>([
        '-n',
        SYSTEM_NAMESPACE,
        'get',
        'pods',
        '-l',
        'app.kubernetes.io/name=instance-manager',
      ]);
      return podKernel(kubectl, SYSTEM_NAMESPACE, manager.items[0]?.metadata.name ?? '');
    },
    // k3s ships the local-path provisioner.
    provideVolumes: async () => undefined,
    release: async () => {
      for (const forward of forwards.splice(0)) await forward.stop().catch(() => undefined);
      await cluster.delete();
    },
  };
}
