import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { CommandRunner } from '@sandbox/sandbox-local';
import { etcdHealthy } from '../control-plane/etcd';
import { spawnGuarded, type GuardedProcess } from '../control-plane/guarded-process';
import { CLUSTER_NETWORK, CLUSTER_NODE_NAME, type ClusterPaths } from './cluster-layout';
import type { ClusterPki } from './cluster-pki';
import {
  apiServerArgs,
  controllerManagerArgs,
  etcdArgs,
  kubeconfigPaths,
  kubeletArgs,
  kubeRouterArgs,
  schedulerArgs,
} from './component-args';

/** What {@link startClusterProcesses} needs. */
export interface ClusterProcessOptions {
  paths: ClusterPaths;
  pki: ClusterPki;
  /** Binary paths by program name. */
  binaries: Record<string, string>;
  run: CommandRunner;
  logger: Logger | undefined;
  /** Epoch ms by which the cluster must be ready. */
  deadline: number;
  /** Archives imported before the kubelet starts (pause, CoreDNS). */
  images: string[];
  /** The manifest list applied once the node is Ready. */
  addons: string;
}

/** The cluster's running processes. */
export interface ClusterProcesses {
  importImages(archives: string[]): Promise<void>;
  /** SIGTERM each, newest first (SIGKILL after a short grace); disarms their watchdogs. */
  stop(): Promise<void>;
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

function binary(options: ClusterProcessOptions, name: string): string {
  const path = options.binaries[name];
  if (!path) throw new Error(`no binary for ${name}`);
  return path;
}

/** Polls `check` until true; fails with the process's log tail when it exits or time runs out. */
async function waitFor(
  name: string,
  process: GuardedProcess | undefined,
  deadline: number,
  check: () => Promise<boolean>,
): Promise<void> {
  for (;;) {
    if (process?.hasExited()) throw new Error(`${name} exited during start-up: ${await process.logTail()}`);
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new Error(`${name} was not ready in time${process ? `: ${await process.logTail()}` : ''}`);
    }
    await sleep(100);
  }
}

/** A loopback port free right now (etcd binds it a moment later). */
function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** GET /readyz with the admin certificate; true on 200. */
async function apiReady(pki: ClusterPki): Promise<boolean> {
  const [ca, cert, key] = await Promise.all(
    [pki.caCert, pki.admin.cert, pki.admin.key].map((p) => readFile(p)),
  );
  const url = `https://${CLUSTER_NETWORK.bridgeIp}:${CLUSTER_NETWORK.apiPort}/readyz`;
  return new Promise((resolve) => {
    const req = request(url, { ca, cert, key, timeout: 2_000, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Starts every process of the cluster in dependency order and applies the add-ons. */
export async function startClusterProcesses(options: ClusterProcessOptions): Promise<ClusterProcesses> {
  const { paths, pki, run, deadline } = options;
  const started: GuardedProcess[] = [];
  const spawn = (name: string, args: string[]): GuardedProcess => {
    const process = spawnGuarded({
      executable: binary(options, name),
      args,
      cwd: paths.dir,
      logFile: join(paths.logs, `${name}.log`),
    });
    started.push(process);
    return process;
  };
  const stop = async (): Promise<void> => {
    for (const process of [...started].reverse()) await process.stop(5_000).catch(() => undefined);
  };
  const kubeconfigs = kubeconfigPaths(paths);
  const kubectl = (args: string[], input?: string, timeoutMs = 60_000) =>
    run(binary(options, 'kubectl'), ['--kubeconfig', kubeconfigs.admin, ...args], { input, timeoutMs });
  const ctr = (args: string[], timeoutMs: number) =>
    run(binary(options, 'ctr'), ['--address', paths.containerdSocket, '--namespace', 'k8s.io', ...args], {
      timeoutMs,
    });
  const importImages = async (archives: string[]): Promise<void> => {
    for (const archive of archives) await ctr(['images', 'import', archive], 10 * 60_000);
  };
  const mark = (what: string, since: number): void => options.logger?.info({ ms: Date.now() - since }, what);
  try {
    let since = Date.now();
    const [clientPort, peerPort] = [await findFreePort(), await findFreePort()];
    const etcd = spawn('etcd', etcdArgs(paths, clientPort, peerPort));
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    await waitFor('etcd', etcd, deadline, () => etcdHealthy(etcdUrl));
    const apiserver = spawn('kube-apiserver', apiServerArgs(paths, pki, etcdUrl));
    // containerd starts while the API server loads: they do not depend on each other.
    const containerd = spawn('containerd', ['--config', paths.containerdConfig]);
    await waitFor('containerd', containerd, deadline, () => exists(paths.containerdSocket));
    await importImages(options.images);
    mark('etcd and containerd ready, images imported', since);
    await waitFor('kube-apiserver', apiserver, deadline, () => apiReady(pki));
    mark('kube-apiserver ready', since);
    since = Date.now();
    spawn('kube-controller-manager', controllerManagerArgs(pki, kubeconfigs.controllerManager));
    spawn('kube-scheduler', schedulerArgs(kubeconfigs.scheduler));
    const kubelet = spawn('kubelet', kubeletArgs(paths, kubeconfigs.kubelet, CLUSTER_NODE_NAME));
    spawn('kube-proxy', ['--config', paths.kubeProxyConfig]);
    spawn('kube-router', kubeRouterArgs(kubeconfigs.kubeRouter, CLUSTER_NODE_NAME));
    await waitFor('kubelet', kubelet, deadline, async () => {
      const ready = await kubectl(
        ['get', 'node', CLUSTER_NODE_NAME, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'],
        undefined,
        10_000,
      ).catch(() => undefined);
      return ready?.stdout.trim() === 'True';
    });
    mark('node Ready', since);
    since = Date.now();
    await kubectl(['apply', '-f', '-'], options.addons);
    const seconds = Math.max(1, Math.round((deadline - Date.now()) / 1_000));
    await kubectl(
      ['-n', 'kube-system', 'rollout', 'status', 'deployment/coredns', `--timeout=${seconds}s`],
      undefined,
      seconds * 1_000 + 10_000,
    );
    mark('CoreDNS ready', since);
    for (const process of started) {
      if (process.hasExited()) throw new Error(`a cluster process exited: ${await process.logTail()}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { importImages, stop };
}
