import { readdir, readFile, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';
import { killProcessGroups, unmountUnder } from '../local-node/node-cleanup';
import { CLUSTER_DIR, CLUSTER_NETWORK } from './cluster-layout';
import { deepestFirst, isClusterProcess, ourIpsets, planTable } from './host-state';

/** Options of {@link cleanupLocalCluster}. */
export interface CleanupOptions {
  /** @defaultValue {@link CLUSTER_DIR} */
  dir?: string;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  /** Remove the node directory itself too. @defaultValue true */
  removeDir?: boolean;
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Pids of the cluster's processes (every one names the node directory in its arguments). */
export async function clusterPids(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const [comm, cmdline] = await Promise.all(
      ['comm', 'cmdline'].map((file) => readFile(`/proc/${entry}/${file}`, 'utf8').catch(() => '')),
    );
    if (isClusterProcess(comm ?? '', cmdline ?? '', dir)) pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs the cluster's process groups until none is left (shims fork sandboxes while dying). */
async function killAll(dir: string): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    const pids = await clusterPids(dir);
    if (pids.length === 0) return;
    killProcessGroups(pids);
    await sleep(100);
  }
  throw new Error(`cluster processes survive SIGKILL: ${(await clusterPids(dir)).join(' ')}`);
}

const IPTABLES = ['iptables', 'ip6tables', 'iptables-legacy', 'ip6tables-legacy'];

/** Removes the KUBE-* chains (kubelet, kube-proxy, kube-router) and the rules jumping to them. */
export async function removeIptablesState(run: CommandRunner = runCommand): Promise<void> {
  for (const binary of IPTABLES) {
    for (const table of ['filter', 'nat', 'mangle']) {
      const listed = await run(binary, ['-w', '5', '-t', table, '-S'], {
        timeoutMs: 30_000,
        allowFailure: true,
      });
      if (listed.exitCode !== 0) continue;
      const plan = planTable(listed.stdout);
      const iptables = (args: string[]): Promise<unknown> =>
        run(binary, ['-w', '5', '-t', table, ...args], { timeoutMs: 30_000, allowFailure: true });
      for (const rule of plan.deleteRules) await iptables(rule);
      for (const chain of plan.chains) await iptables(['-F', chain]);
      for (const chain of plan.chains) await iptables(['-X', chain]);
    }
  }
}

/** Destroys kube-router's ipsets (after the rules that use them are gone). */
export async function removeIpsets(run: CommandRunner = runCommand): Promise<void> {
  const listed = await run('ipset', ['list', '-n'], { timeoutMs: 30_000, allowFailure: true });
  if (listed.exitCode !== 0) return;
  for (const name of ourIpsets(listed.stdout)) {
    await run('ipset', ['destroy', name], { timeoutMs: 30_000, allowFailure: true });
  }
}

async function subdirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    found.push(path, ...(await subdirs(path)));
  }
  return found;
}

/** Removes the kubelet's `kubepods` cgroup tree from every v1 hierarchy (its processes are dead). */
export async function removeKubepodsCgroups(root = '/sys/fs/cgroup'): Promise<void> {
  for (const hierarchy of await readdir(root).catch(() => [])) {
    const kubepods = join(root, hierarchy, 'kubepods');
    if (!(await exists(kubepods))) continue;
    for (const dir of deepestFirst([kubepods, ...(await subdirs(kubepods))])) {
      await rmdir(dir).catch(() => undefined);
    }
  }
}

async function removeIfEmpty(dir: string): Promise<void> {
  if ((await readdir(dir).catch(() => ['x'])).length === 0) await rmdir(dir).catch(() => undefined);
}

/** Listening unix sockets, from /proc/net/unix. */
async function listeningSockets(): Promise<Set<string>> {
  const table = await readFile('/proc/net/unix', 'utf8').catch(() => '');
  return new Set(
    table
      .split('\n')
      .flatMap((line) => line.split(/\s+/).slice(7, 8))
      .filter(Boolean),
  );
}

/** Pod sandbox ids containerd's CRI plugin knows under the node directory. */
async function sandboxIds(dir: string): Promise<string[]> {
  const cri = 'io.containerd.grpc.v1.cri';
  const lists = await Promise.all(
    ['root', 'state'].map((part) => readdir(join(dir, 'containerd', part, cri, 'sandboxes')).catch(() => [])),
  );
  return [...new Set(lists.flat())];
}

/** The fixed paths the kubelet, containerd and the CNI library write outside the node directory. */
export async function removeFixedPaths(dir: string): Promise<void> {
  const ids = await sandboxIds(dir);
  await rm('/var/log/containers', { recursive: true, force: true });
  await rm('/var/lib/kubelet/device-plugins', { recursive: true, force: true });
  await removeIfEmpty('/var/lib/kubelet');
  const results = '/var/lib/cni/results';
  for (const name of await readdir(results).catch(() => [])) {
    // `<network>-<sandbox id>-<interface>`: ours, and containerd's loopback for our sandboxes.
    const ours = name.startsWith('sandbox-cluster-') || ids.some((id) => name.includes(id));
    if (ours) await unlink(join(results, name)).catch(() => undefined);
  }
  await removeIfEmpty(results);
  await removeIfEmpty('/var/lib/cni');
  // Shim sockets are named by a hash; ours are the ones nobody listens on any more.
  const listening = await listeningSockets();
  for (const name of await readdir('/run/containerd/s').catch(() => [])) {
    const path = join('/run/containerd/s', name);
    if (!listening.has(path)) await unlink(path).catch(() => undefined);
  }
  await removeIfEmpty('/run/containerd/s');
  await removeIfEmpty('/run/containerd');
}

/** Deletes the veths on the cluster's bridge, then the bridge. */
export async function removeBridge(run: CommandRunner = runCommand): Promise<void> {
  const { bridge } = CLUSTER_NETWORK;
  const ports = await run('ip', ['-o', 'link', 'show', 'master', bridge], {
    timeoutMs: 10_000,
    allowFailure: true,
  });
  for (const line of ports.stdout.split('\n')) {
    const name = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1];
    if (name) await run('ip', ['link', 'delete', name], { timeoutMs: 10_000, allowFailure: true });
  }
  await run('ip', ['link', 'delete', bridge], { timeoutMs: 10_000, allowFailure: true });
}

/**
 * Removes everything a local cluster leaves on the host, whether it stopped or crashed: its
 * processes (with shims and gVisor sandboxes), mounts under the node directory, the iptables
 * chains of kubelet, kube-proxy and kube-router (IPv4 and IPv6, nft and legacy), kube-router's
 * ipsets, the `kubepods` cgroups, the fixed paths of kubelet, containerd and CNI, the bridge and
 * its veths, and the node directory. Safe to run when nothing is there.
 */
export async function cleanupLocalCluster(options: CleanupOptions = {}): Promise<void> {
  const dir = options.dir ?? CLUSTER_DIR;
  const run = options.run ?? runCommand;
  await killAll(dir);
  await unmountUnder(dir, run);
  await removeIptablesState(run);
  await removeIpsets(run);
  await removeKubepodsCgroups();
  await removeFixedPaths(dir);
  await removeBridge(run);
  if (options.removeDir ?? true) await rm(dir, { recursive: true, force: true });
}
