import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandRunner } from '@sandbox/sandbox-local';
import type { KubeBinaries } from '../build/ensure-kube-binaries';
import type { NodeBinaries } from '../local-node/ensure-node-binaries';
import { writeStaticBinaryImage } from '../local-node/oci-archive';
import { coreDnsImage } from './cluster-addons';
import { CLUSTER_NETWORK, CLUSTER_NODE_NAME, type ClusterPaths } from './cluster-layout';
import { writeKubeconfig, type ClusterPki } from './cluster-pki';
import { kubeconfigPaths } from './component-args';
import type { ClusterBinaries } from './ensure-cluster-binaries';
import { KUBELET_SYSCTLS } from './host-state';
import { cniConfList, containerdConfig, kubeletConfig, kubeProxyConfig, runscConfig } from './node-files';

/** The binaries a cluster runs. */
export interface Built {
  kube: KubeBinaries;
  cluster: ClusterBinaries;
  node: NodeBinaries;
  runsc: string;
}

/** Writes the PKI-dependent configuration files and kubeconfigs under the node directory. */
export async function writeFiles(
  paths: ClusterPaths,
  pki: ClusterPki,
  built: Built,
  pauseImage: string,
): Promise<void> {
  for (const dir of [
    paths.logs,
    paths.podLogs,
    paths.cniConfDir,
    paths.images,
    paths.volumes,
    paths.kubeletRoot,
  ]) {
    await mkdir(dir, { recursive: true });
  }
  const kubeconfigs = kubeconfigPaths(paths);
  await mkdir(dirname(kubeconfigs.admin), { recursive: true });
  const server = `https://${CLUSTER_NETWORK.bridgeIp}:${CLUSTER_NETWORK.apiPort}`;
  await writeKubeconfig(kubeconfigs.admin, server, pki.caCert, pki.admin);
  await writeKubeconfig(kubeconfigs.kubelet, server, pki.caCert, pki.kubeletClient);
  await writeKubeconfig(kubeconfigs.controllerManager, server, pki.caCert, pki.controllerManager);
  await writeKubeconfig(kubeconfigs.scheduler, server, pki.caCert, pki.scheduler);
  await writeKubeconfig(kubeconfigs.kubeProxy, server, pki.caCert, pki.kubeProxy);
  await writeKubeconfig(kubeconfigs.kubeRouter, server, pki.caCert, pki.kubeRouter);
  await mkdir(dirname(paths.containerdConfig), { recursive: true });
  await writeFile(
    paths.containerdConfig,
    containerdConfig(paths, pauseImage, built.cluster.paths['containerd-shim-runsc-v1'] ?? ''),
  );
  await writeFile(paths.runscConfig, runscConfig(paths, built.runsc));
  await writeFile(join(paths.cniConfDir, '10-sandbox-cluster.conflist'), cniConfList(paths));
  const servingCert = pki.kubeletServing.cert;
  await writeFile(
    paths.kubeletConfig,
    kubeletConfig(paths, { caCert: pki.caCert, servingCert, servingKey: pki.kubeletServing.key }),
  );
  await writeFile(paths.kubeProxyConfig, kubeProxyConfig(kubeconfigs.kubeProxy, CLUSTER_NODE_NAME));
  // Pods resolve through the cluster DNS only; the host's resolvers are not theirs.
  await writeFile(paths.resolvConf, '');
}

/** The bridge, with the address the API server and kubelet bind, before either starts. */
export async function createBridge(run: CommandRunner): Promise<void> {
  const { bridge, bridgeIp, podCidr } = CLUSTER_NETWORK;
  const prefix = podCidr.split('/')[1] ?? '24';
  await run('ip', ['link', 'add', bridge, 'type', 'bridge'], { timeoutMs: 10_000 });
  await run('ip', ['addr', 'add', `${bridgeIp}/${prefix}`, 'dev', bridge], { timeoutMs: 10_000 });
  await run('ip', ['link', 'set', bridge, 'up'], { timeoutMs: 10_000 });
  // The host reaches ClusterIPs through kube-proxy's OUTPUT rules, which need a route to exist
  // first; it goes with the bridge.
  await run('ip', ['route', 'add', CLUSTER_NETWORK.serviceCidr, 'dev', bridge], { timeoutMs: 10_000 });
}

/** The kubelet's kernel settings as found, to put back on stop. */
export async function readSysctls(): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const name of KUBELET_SYSCTLS) {
    const value = await readFile(`/proc/sys/${name}`, 'utf8').catch(() => undefined);
    if (value !== undefined) values.set(name, value.trim());
  }
  return values;
}

export async function restoreSysctls(values: Map<string, string>): Promise<void> {
  for (const [name, value] of values) await writeFile(`/proc/sys/${name}`, value).catch(() => undefined);
}

/** The pause and CoreDNS images as one-binary OCI archives (no registry anywhere). */
export async function writeImages(
  paths: ClusterPaths,
  built: Built,
  pauseImage: string,
  run: CommandRunner,
): Promise<{ all: string[]; coreDns: string }> {
  const pauseArchive = join(paths.images, 'pause.oci.tar');
  await writeStaticBinaryImage(
    { reference: pauseImage, binaryPath: built.node.pause, entrypoint: '/pause', user: '65535:65535' },
    pauseArchive,
    run,
  );
  const corednsBinary = built.cluster.paths.coredns ?? '';
  const coreDns = coreDnsImage(
    corednsBinary
      .split('/')
      .at(-2)
      ?.replace(/^coredns-/, '') ?? 'latest',
  );
  const coreDnsArchive = join(paths.images, 'coredns.oci.tar');
  await writeStaticBinaryImage(
    { reference: coreDns, binaryPath: corednsBinary, entrypoint: '/coredns', user: '0:0' },
    coreDnsArchive,
    run,
  );
  return { all: [pauseArchive, coreDnsArchive], coreDns };
}
