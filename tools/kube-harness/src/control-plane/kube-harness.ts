import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { findFreePort } from '@sandbox/testing';
import { ensureKubeBinaries, type KubeBinaries, type KubeBuildOptions } from '../build/ensure-kube-binaries';
import { createHarnessPki, type HarnessPki } from '../pki/pki';
import { startApiServer } from './apiserver';
import { startEtcd, type EtcdProcess } from './etcd';
import type { GuardedProcess } from './guarded-process';
import { harnessKubeConfig } from './kubeconfig';

/** Options of {@link startKubeHarness}. */
export interface StartKubeHarnessOptions {
  /** Already built binaries; otherwise {@link ensureKubeBinaries} runs (building on first use). */
  binaries?: KubeBinaries;
  build?: KubeBuildOptions;
  /** Per process (etcd, kube-apiserver). @defaultValue 90000 */
  startTimeoutMs?: number;
}

/** A real etcd and kube-apiserver on loopback, owned by one test file. */
export interface KubeHarness {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** The temporary directory: PKI, etcd data, logs, kubeconfig. Removed by `stop()`. */
  readonly dir: string;
  /** An admin kubeconfig file (client certificate in `system:masters`). */
  readonly kubeconfigPath: string;
  readonly binaries: KubeBinaries;
  readonly pki: HarnessPki;
  /** A fresh admin KubeConfig (client certificate), optionally defaulting to `namespace`. */
  adminConfig(namespace?: string): Promise<KubeConfig>;
  /** Stops kube-apiserver (SIGTERM), leaving etcd and its data. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port, certificates and etcd. */
  startApiServer(): Promise<void>;
  /** `stopApiServer()` then `startApiServer()`. */
  restartApiServer(): Promise<void>;
  /**
   * Freezes kube-apiserver (SIGSTOP): connections stay open and nothing answers, the way a watch
   * goes silent behind a dead network path. `resumeApiServer()` thaws it.
   */
  pauseApiServer(): void;
  resumeApiServer(): void;
  /** Process ids of the running servers, for leak checks. */
  pids(): { etcd: number | undefined; apiserver: number | undefined };
  /** Stops both processes and removes the directory. Safe to call twice. */
  stop(): Promise<void>;
}

const PORT_ATTEMPTS = 3;

/**
 * Starts etcd and kube-apiserver (RBAC, service-account token signing, the admission plugins we
 * rely on) on free loopback ports, writes an admin kubeconfig, and waits until `/readyz` is ok. If
 * this process dies without `stop()`, watchdogs kill both servers and remove the directory.
 */
export async function startKubeHarness(options: StartKubeHarnessOptions = {}): Promise<KubeHarness> {
  const binaries = options.binaries ?? (await ensureKubeBinaries(options.build));
  const dir = await mkdtemp(join(tmpdir(), 'kube-harness-'));
  try {
    const pki = await createHarnessPki(dir);
    const { etcd, apiserver, port } = await startOnFreePorts(binaries, dir, pki, options.startTimeoutMs);
    return await assemble({
      binaries,
      dir,
      pki,
      etcd,
      apiserver,
      port,
      startTimeoutMs: options.startTimeoutMs,
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

interface Running {
  binaries: KubeBinaries;
  dir: string;
  pki: HarnessPki;
  etcd: EtcdProcess;
  apiserver: GuardedProcess;
  port: number;
  startTimeoutMs: number | undefined;
}

/** The one kube-apiserver process of a harness, stopped and started again on the same port. */
function apiServerSlot(running: Running) {
  let current: GuardedProcess | undefined = running.apiserver;
  const stop = async (): Promise<void> => {
    const process = current;
    current = undefined;
    // A frozen process would sit out the whole grace period of SIGTERM.
    process?.signal('SIGCONT');
    await process?.stop();
  };
  const start = async (): Promise<void> => {
    await stop();
    current = await startApiServer({
      binary: running.binaries.apiserver,
      dir: running.dir,
      pki: running.pki,
      etcdUrl: running.etcd.url,
      port: running.port,
      startTimeoutMs: running.startTimeoutMs,
    });
  };
  return { stop, start, current: () => current };
}

async function assemble(running: Running): Promise<KubeHarness> {
  const { binaries, dir, pki, etcd } = running;
  const server = `https://127.0.0.1:${running.port}`;
  const apiserver = apiServerSlot(running);
  const kubeconfigPath = join(dir, 'admin.kubeconfig');
  await writeFile(kubeconfigPath, (await harnessKubeConfig(server, { kind: 'admin', pki })).exportConfig());
  let stopped = false;
  return {
    server,
    dir,
    kubeconfigPath,
    binaries,
    pki,
    adminConfig: (namespace) => harnessKubeConfig(server, { kind: 'admin', pki }, namespace),
    stopApiServer: apiserver.stop,
    startApiServer: apiserver.start,
    restartApiServer: apiserver.start,
    pauseApiServer: () => apiserver.current()?.signal('SIGSTOP'),
    resumeApiServer: () => apiserver.current()?.signal('SIGCONT'),
    pids: () => ({
      etcd: etcd.process.hasExited() ? undefined : etcd.process.child.pid,
      apiserver: apiserver.current()?.hasExited() === false ? apiserver.current()?.child.pid : undefined,
    }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      try {
        await apiserver.stop();
        await etcd.process.stop();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

async function freePorts(): Promise<{ clientPort: number; peerPort: number; port: number }> {
  const ports: number[] = [];
  while (ports.length < 3) {
    const port = await findFreePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [clientPort = 0, peerPort = 0, port = 0] = ports;
  return { clientPort, peerPort, port };
}

// Another process may take a port between probing and binding; then a server exits with "address
// already in use" and everything starts again on new ports.
async function startOnFreePorts(
  binaries: KubeBinaries,
  dir: string,
  pki: HarnessPki,
  startTimeoutMs: number | undefined,
): Promise<{ etcd: EtcdProcess; apiserver: GuardedProcess; port: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const { clientPort, peerPort, port } = await freePorts();
    let etcd: EtcdProcess | undefined;
    try {
      etcd = await startEtcd({ binary: binaries.etcd, dir, clientPort, peerPort, startTimeoutMs });
      const apiserver = await startApiServer({
        binary: binaries.apiserver,
        dir,
        pki,
        etcdUrl: etcd.url,
        port,
        startTimeoutMs,
      });
      return { etcd, apiserver, port };
    } catch (error) {
      await etcd?.process.stop();
      const inUse = error instanceof Error && /address already in use/i.test(error.message);
      if (!inUse || attempt >= PORT_ATTEMPTS) throw error;
      await rm(join(dir, 'etcd'), { recursive: true, force: true });
    }
  }
}
