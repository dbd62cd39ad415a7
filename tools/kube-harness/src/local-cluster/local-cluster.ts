import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  assertTrustedBinary,
  ensureRunscBuild,
  runCommand,
  type CommandRunner,
} from '@sandbox/sandbox-local';
import { ensureKubeBinaries } from '../build/ensure-kube-binaries';
import { ensureNodeBinaries } from '../local-node/ensure-node-binaries';
import { cleanupLocalCluster } from './cleanup-cluster';
import { clusterAddons } from './cluster-addons';
import {
  createBridge,
  readSysctls,
  restoreSysctls,
  writeFiles,
  writeImages,
  type Built,
} from './cluster-files';
import { CLUSTER_DIR, CLUSTER_NETWORK, CLUSTER_NODE_NAME, clusterPaths } from './cluster-layout';
import { createClusterPki } from './cluster-pki';
import { startClusterProcesses, type ClusterProcesses } from './cluster-processes';
import { armClusterWatchdog } from './cluster-watchdog';
import { kubeconfigPaths } from './component-args';
import { ensureClusterBinaries } from './ensure-cluster-binaries';

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

async function ensureAll(logger: Logger | undefined): Promise<Built> {
  const kube = await ensureKubeBinaries({ logger });
  const cluster = await ensureClusterBinaries({ logger });
  const node = await ensureNodeBinaries({ logger });
  const runsc = (await ensureRunscBuild({ logger })).path;
  // Every program below runs as root: none may be one another user could have replaced.
  for (const program of [kube.apiserver, kube.etcd, ...Object.values(cluster.paths), node.crictl, node.pause])
    await assertTrustedBinary(program);
  return { kube, cluster, node, runsc };
}

/** Refuses to start where NetworkPolicies could not apply between pods on one bridge. */
async function checkHost(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the local cluster needs root');
  const path = '/proc/sys/net/bridge/bridge-nf-call-iptables';
  const value = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (value !== '1') {
    throw new Error(
      `${path} is "${value || 'missing'}", not 1: NetworkPolicies would not apply to pods on one bridge`,
    );
  }
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
    await stop().catch((stopError: unknown) =>
      logger?.error({ err: stopError }, 'clean-up after a failed start failed'),
    );
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
