import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureRunscBuild, runCommand } from '@sandbox/sandbox-local';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import { asRoot, commandWorks, describeRequiring, goOnPath } from '@sandbox/testing';
import { HARNESS_START_TIMEOUT_MS, testLogger } from '../test-support/describe-with-kube.fixture';
import { startLocalNode, type LocalNode } from './local-node';
import { GVISOR_RUNTIME_TYPE, nodeLayoutPaths } from './node-config';
import { mountsUnder, pidsMentioning } from './node-cleanup';

const describeWithContainerd = describeRequiring(
  goOnPath(),
  asRoot,
  commandWorks('containerd', ['--version'], "Debian's containerd"),
);

interface PodInspection {
  status: { state: string; network: { ip: string } };
  info: {
    runtimeType: string;
    runtimeOptions: { binary_name: string; root: string };
    runtimeSpec: { linux: { namespaces: { type: string; path?: string }[] } };
  };
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

describeWithContainerd('local node: containerd with gVisor and the bridge CNI', () => {
  let node: LocalNode;
  let runscPath: string;
  let podId = '';

  beforeAll(async () => {
    runscPath = (await ensureRunscBuild({ logger: testLogger })).path;
    node = await startLocalNode({ runscPath, logger: testLogger });
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await node?.stop();
  }, 120_000);

  it('runs a pod sandbox under runsc in its own network namespace with an address on the node bridge', async () => {
    const { dir, podSubnet, bridge } = node.layout;
    const podConfig = join(dir, 'pod.json');
    const metadata = { name: 'probe', namespace: 'local-node-test', uid: `uid-${bridge}`, attempt: 0 };
    await writeFile(podConfig, JSON.stringify({ metadata, log_directory: join(dir, 'pod-logs') }));
    podId = (await node.crictl(['runp', '--runtime', 'gvisor', podConfig])).stdout.trim();

    const pod = JSON.parse((await node.crictl(['inspectp', podId])).stdout) as PodInspection;
    expect(pod.status.state).toBe('SANDBOX_READY');
    expect(pod.info.runtimeType).toBe(GVISOR_RUNTIME_TYPE);
    expect(pod.info.runtimeOptions.binary_name).toBe(runscPath);
    const prefix = podSubnet.replace(/\.0\/24$/, '.');
    expect(pod.status.network.ip.startsWith(prefix)).toBe(true);
    const netns = pod.info.runtimeSpec.linux.namespaces.find((ns) => ns.type === 'network')?.path ?? '';
    expect(netns.startsWith(`${dir}/`)).toBe(true);

    // runsc itself lists the sandbox as running under the node's runsc root.
    const root = join(nodeLayoutPaths(dir).runscRoot, 'k8s.io');
    const listed = await runCommand(runscPath, [`--root=${root}`, 'list', '--format=json'], {
      timeoutMs: 30_000,
    });
    const sandboxes = JSON.parse(listed.stdout) as { id: string; status: string }[];
    expect(sandboxes).toContainEqual(expect.objectContaining({ id: podId, status: 'running' }));

    // The bridge plugin made the node bridge the pods' gateway.
    const link = await runCommand('ip', ['-4', '-o', 'addr', 'show', 'dev', bridge], { timeoutMs: 10_000 });
    expect(link.stdout).toContain(`${prefix}1/24`);
  }, 180_000);

  it('imports an image built without a registry, as the pods of the local overlay use them', async () => {
    const tag = await ensureExampleAppImage({ logger: testLogger });
    const archive = join(node.layout.dir, 'example-app.oci.tar');
    await runCommand('podman', ['save', '--format', 'oci-archive', '-o', archive, tag], {
      timeoutMs: 300_000,
    });
    await node.importImage(archive);
    const images = (await node.crictl(['images', '--output', 'json'])).stdout;
    const listed = JSON.parse(images) as { images: { repoTags: string[] }[] };
    expect(listed.images.flatMap((image) => image.repoTags)).toEqual(
      expect.arrayContaining([tag, node.layout.pauseImage]),
    );
  }, 600_000);

  it('leaves no process, mount, bridge or directory behind when stopped', async () => {
    const { dir, socket, bridge } = node.layout;
    await writeFile(
      join(dir, 'pod2.json'),
      JSON.stringify({
        metadata: { name: 'left', namespace: 'local-node-test', uid: 'uid-left', attempt: 0 },
      }),
    );
    await node.crictl(['runp', '--runtime', 'gvisor', join(dir, 'pod2.json')]);
    await node.stop();
    expect(await pidsMentioning(socket)).toEqual([]);
    expect(await pidsMentioning(dir)).toEqual([]);
    expect(mountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), dir)).toEqual([]);
    const shown = await runCommand('ip', ['link', 'show', bridge], { timeoutMs: 10_000, allowFailure: true });
    expect(shown.exitCode).not.toBe(0);
    expect(await exists(dir)).toBe(false);
  }, 180_000);
});
