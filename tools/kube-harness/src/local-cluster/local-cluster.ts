import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ensureRunscBuild, runCommand, type CommandRunner } from '@sandbox/sandbox-local';
import { ensureKubeBinaries, type KubeBinaries } from '../build/ensure-kube-binaries';
import { ensureNodeBinaries, type NodeBinaries } from '../local-node/ensure-node-binaries';
import { writeStaticBinaryImage } from '../local-node/oci-archive';
import { cleanupLocalCluster } from './cleanup-cluster';
import { clusterAddons, coreDnsImage } from './cluster-addons';
import { ensureClusterBinaries, type ClusterBinaries } from './ensure-cluster-binaries';
import { CLUSTER_DIR, CLUSTER_NETWORK, CLUSTER_NODE_NAME, clusterPaths, type ClusterPaths } from './cluster-layout';
import { createClusterPki, writeKubeconfig, type ClusterPki } from './cluster-pki';
import { kubeconfigPaths } from './component-args';
import { armClusterWatchdog } from './cluster-watchdog';
import { startClusterProcesses, type ClusterProcesses } from './cluster-processes';
import { cniConfList, containerdConfig, kubeletConfig, kubeProxyConfig, runscConfig } from './node-files';
import { KUBELET_SYSCTLS } from './host-state';

/** Options of {@link startLocalCluster}. */
export interface LocalClusterOptions {
  logger?: Logger;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  /** Whole start, builds excluded. @defaultValue 180000 */
  startTimeoutMs?: number;
}

/** A running one-node cluster. Only one can run per host (fixed addresses, paths and chains). */
export interface LocalCluster {
  /** Admin kubeconfig (client certificate in `system:masters`), server `https://10.42.0.1:6443`. */
  kubeconfigPath: string;
  kubectlPath: string;
  nodeName: string;
  bridgeIp: string;
  podCidr: string;
  serviceCidr: string;
  dnsIp: string;
  /** The node's scratch directory; `volumes/` in it is free for hostPath volumes. */
  dir: string;
  /** Imports image archives (OCI or docker) into the CRI's image store (`ctr -n k8s.io images import`). */
  importImages(archives: string[]): Promise<void>;
  /** Stops everything and removes all host state the cluster made. Safe to call twice. */
  stop(): Promise<void>;
}

interface Built {
  kube: KubeBinaries;
  cluster: ClusterBinaries;
  node: NodeBinaries;
  runsc: string;
}

async function ensureAll(logger: Logger | undefined): Promise<Built> {
  const kube = await ensureKubeBinaries({ logger });
  const cluster = await ensureClusterBinaries({ logger });
  const node = await ensureNodeBinaries({ logger });
  const runsc = (await ensureRunscBuild({ logger })).path;
  return { kube, cluster, node, runsc };
}

/** Refuses to start where NetworkPolicies could not apply between pods on one bridge. */
async function checkHost(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the local cluster needs root');
  const path = '/proc/sys/net/bridge/bridge-nf-call-iptables';
  const value = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (value !== '1') {
    throw new Error(`${path} is "${value || 'missing'}", not 1: NetworkPolicies would not apply to pods on one bridge`);
  }
}

async function writeFiles(paths: ClusterPaths, pki: ClusterPki, built: Built, pauseImage: string): Promise<void> {
  for (const dir of [paths.logs, paths.podLogs, paths.cniConfDir, paths.images, paths.volumes, paths.kubeletRoot]) {
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
  await writeFile(paths.containerdConfig, containerdConfig(paths, pauseImage));
  await writeFile(paths.runscConfig, runscConfig(paths, built.runsc));
  await writeFile(join(paths.cniConfDir, '10-sandbox-cluster.conflist'), cniConfList(paths));
  const servingCert = pki.kubeletServing.cert;
  await writeFile(paths.kubeletConfig, kubeletConfig(paths, { caCert: pki.caCert, servingCert, servingKey: pki.kubeletServing.key }));
  await writeFile(paths.kubeProxyConfig, kubeProxyConfig(kubeconfigs.kubeProxy, CLUSTER_NODE_NAME));
  // Pods resolve through the cluster DNS only; the host's resolvers are not theirs.
  await writeFile(paths.resolvConf, '');
}

/** The bridge, with the address the API server and kubelet bind, before either starts. */
async function createBridge(run: CommandRunner): Promise<void> {
  const { bridge, bridgeIp, podCidr } = CLUSTER_NETWORK;
  const prefix = podCidr.split('/')[1] ?? '24';
  await run('ip', ['link', 'add', bridge, 'type', 'bridge'], { timeoutMs: 10_000 });
  await run('ip', ['addr', 'add', `${bridgeIp}/${prefix}`, 'dev', bridge], { timeoutMs: 10_000 });
  await run('ip', ['link', 'set', bridge, 'up'], { timeoutMs: 10_000 });
  // The host reaches ClusterIPs through kube-proxy's OUTPUT rules, which need a route to exist
  // first; it goes with the bridge.
  await run('ip', ['route', 'add', CLUSTER_NETWORK.serviceCidr, 'dev', bridge], { timeoutMs: 10_000 });
}

async function readSysctls(): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const name of KUBELET_SYSCTLS) {
    const value = await readFile(`/proc/sys/${name}`, 'utf8').catch(() => undefined);
    if (value !== undefined) values.set(name, value.trim());
  }
  return values;
}

async function restoreSysctls(values: Map<string, string>): Promise<void> {
  for (const [name, value] of values) await writeFile(`/proc/sys/${name}`, value).catch(() => undefined);
}

/**
 * Starts a real one-node Kubernetes cluster on this host: etcd, kube-apiserver on the bridge
 * address, controller-manager, scheduler, a kubelet on containerd with gVisor as its only runtime,
 * kube-proxy (iptables), kube-router's NetworkPolicy controller and CoreDNS as a pod behind
 * `kube-dns`. Builds the binaries on first use. Removes leftovers of an earlier run first; if this
 * process dies, a watchdog removes everything.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const run = options.run ?? runCommand;
  const logger = options.logger;
  await checkHost();
  const built = await ensureAll(logger);
  const started = Date.now();
  await cleanupLocalCluster({ run });
  const paths = clusterPaths(CLUSTER_DIR);
  await mkdir(paths.dir, { recursive: true });
  const sysctls = await readSysctls();
  const watchdogLog = join('/tmp', 'sandbox-cluster-watchdog.log');
  const disarm = armClusterWatchdog(watchdogLog);
  let processes: ClusterProcesses | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    const stopStarted = Date.now();
    await processes?.stop();
    await cleanupLocalCluster({ run });
    await restoreSysctls(sysctls);
    disarm();
    await rm(watchdogLog, { force: true });
    logger?.info({ ms: Date.now() - stopStarted }, 'local cluster stopped');
  };
  try {
    const pki = await createClusterPki(paths.pki, CLUSTER_NODE_NAME, run);
    const pauseImage = `localhost/sandbox-node/pause:${built.node.buildKey}`;
    await writeFiles(paths, pki, built, pauseImage);
    await createBridge(run);
    const images = await writeImages(paths, built, pauseImage, run);
    processes = await startClusterProcesses({
      paths,
      pki,
      binaries: { ...built.cluster.paths, 'kube-apiserver': built.kube.apiserver, etcd: built.kube.etcd },
      run,
      logger,
      deadline: Date.now() + (options.startTimeoutMs ?? 180_000),
      images: images.all,
      addons: clusterAddons(images.coreDns),
    });
    logger?.info({ ms: Date.now() - started }, 'local cluster ready');
  } catch (error) {
    await stop().catch((stopError: unknown) => logger?.error({ err: stopError }, 'clean-up after a failed start failed'));
    throw error;
  }
  const kubectlPath = built.cluster.paths.kubectl ?? '';
  const running = processes;
  return {
    kubeconfigPath: kubeconfigPaths(paths).admin,
    kubectlPath,
    nodeName: CLUSTER_NODE_NAME,
    bridgeIp: CLUSTER_NETWORK.bridgeIp,
    podCidr: CLUSTER_NETWORK.podCidr,
    serviceCidr: CLUSTER_NETWORK.serviceCidr,
    dnsIp: CLUSTER_NETWORK.dnsIp,
    dir: paths.dir,
    importImages: (archives) => running.importImages(archives),
    stop,
  };
}

/** The pause and CoreDNS images as one-binary OCI archives (no registry anywhere). */
async function writeImages(
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
  const coreDns = coreDnsImage(corednsBinary.split('/').at(-2)?.replace(/^coredns-/, '') ?? 'latest');
  const coreDnsArchive = join(paths.images, 'coredns.oci.tar');
  await writeStaticBinaryImage(
    { reference: coreDns, binaryPath: corednsBinary, entrypoint: '/coredns', user: '0:0' },
    coreDnsArchive,
    run,
  );
  return { all: [pauseArchive, coreDnsArchive], coreDns };
}
