import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { runCommand, type CommandResult, type CommandRunner } from '@sandbox/sandbox-local';
import { spawnGuarded, type GuardedProcess } from '../control-plane/guarded-process';
import { ensureNodeBinaries, type NodeBinaries } from './ensure-node-binaries';
import { cniConfList, containerdConfig, nodeLayoutPaths, type NodeLayout } from './node-config';
import { deleteLink, killProcessGroups, pidsMentioning, unmountUnder } from './node-cleanup';
import { writeStaticBinaryImage } from './oci-archive';

/** Options of {@link startLocalNode}. */
export interface LocalNodeOptions {
  /** The runsc containerd's shim runs as the OCI runtime (the driver's build; systrap by default). */
  runscPath: string;
  logger: Logger;
  /** @defaultValue ensureNodeBinaries() */
  binaries?: NodeBinaries;
  /** @defaultValue runCommand */
  run?: CommandRunner;
}

/** A running containerd with gVisor as its runtime and the bridge CNI, all of it under one directory. */
export interface LocalNode {
  readonly layout: NodeLayout;
  /** `unix://` address of containerd's CRI endpoint. */
  readonly criEndpoint: string;
  /** Imports an OCI image archive (`podman save --format oci-archive`) into the CRI's namespace. */
  importImage(archivePath: string): Promise<void>;
  /** Runs crictl against this node; throws on a non-zero exit. */
  crictl(args: string[], timeoutMs?: number): Promise<CommandResult>;
  /** Kills containerd, its shims and sandboxes, unmounts, deletes the bridge and the directory. */
  stop(): Promise<void>;
}

const CONTAINERD_START_TIMEOUT_MS = 60_000;

async function waitForSocket(path: string, containerd: GuardedProcess): Promise<void> {
  const deadline = Date.now() + CONTAINERD_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (containerd.hasExited()) throw new Error(`containerd exited:\n${await containerd.logTail()}`);
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`containerd did not serve ${path} in time:\n${await containerd.logTail()}`);
}

/** A /24 of 10.230.0.0/16 and a bridge name, both random so two nodes on one host never collide. */
function uniqueNetwork(): { id: string; bridge: string; podSubnet: string } {
  const bytes = randomBytes(3);
  const id = bytes.toString('hex');
  return { id, bridge: `sbxn-${id}`, podSubnet: `10.230.${bytes[0] ?? 0}.0/24` };
}

async function writeNodeFiles(
  layout: NodeLayout,
  binaries: NodeBinaries,
  run: CommandRunner,
): Promise<string> {
  const paths = nodeLayoutPaths(layout.dir);
  await mkdir(paths.cniConfDir, { recursive: true });
  await writeFile(paths.config, containerdConfig(layout));
  await writeFile(join(paths.cniConfDir, '10-sandbox-node.conflist'), cniConfList(layout));
  const pauseArchive = join(layout.dir, 'pause.oci.tar');
  await writeStaticBinaryImage(
    { reference: layout.pauseImage, binaryPath: binaries.pause, entrypoint: '/pause', user: '65535:65535' },
    pauseArchive,
    run,
  );
  return pauseArchive;
}

/**
 * Starts Debian's containerd as a one-node CRI runtime: gVisor (runsc, under containerd's runc v2
 * shim) is its only runtime handler, pods get their own network namespace on a bridge of their own through
 * Debian's CNI plugins, and the pause image is imported from a local archive (no registry). Needs
 * root, like the local driver.
 */
export async function startLocalNode(options: LocalNodeOptions): Promise<LocalNode> {
  const run = options.run ?? runCommand;
  const binaries = options.binaries ?? (await ensureNodeBinaries({ logger: options.logger }));
  const network = uniqueNetwork();
  const dir = await mkdtemp(join(tmpdir(), `sbxnode-${network.id}-`));
  const layout: NodeLayout = {
    dir,
    socket: nodeLayoutPaths(dir).socket,
    ...network,
    runscPath: options.runscPath,
    pauseImage: `localhost/sandbox-node/pause:${binaries.buildKey}`,
  };
  let containerd: GuardedProcess | undefined;
  const ctr = (args: string[], timeoutMs = 120_000): Promise<CommandResult> =>
    run('ctr', ['--address', layout.socket, '--namespace', 'k8s.io', ...args], { timeoutMs });
  const crictl = (args: string[], timeoutMs = 120_000): Promise<CommandResult> =>
    run(binaries.crictl, ['--runtime-endpoint', `unix://${layout.socket}`, '--timeout', '60s', ...args], {
      timeoutMs,
    });
  const stop = async (): Promise<void> => {
    // No CRI removal first: containerd's runc shim never sees runsc's sandbox exit here, so
    // StopPodSandbox only times out (see the README). Every process of the node names its directory
    // (socket, runsc root, bundles): containerd goes first, then each of those process groups.
    await containerd?.stop();
    killProcessGroups(await pidsMentioning(dir));
    await unmountUnder(dir, run);
    await deleteLink(layout.bridge, run);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const pauseArchive = await writeNodeFiles(layout, binaries, run);
    containerd = spawnGuarded({
      executable: 'containerd',
      args: ['--config', nodeLayoutPaths(dir).config],
      cwd: dir,
      logFile: join(dir, 'containerd.log'),
    });
    await waitForSocket(layout.socket, containerd);
    await ctr(['images', 'import', pauseArchive]);
    options.logger.info({ dir, bridge: layout.bridge, subnet: layout.podSubnet }, 'local node ready');
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    layout,
    criEndpoint: `unix://${layout.socket}`,
    importImage: async (archivePath) => {
      await ctr(['images', 'import', archivePath], 10 * 60_000);
    },
    crictl,
    stop,
  };
}
