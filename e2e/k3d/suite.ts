// The k3d suite's steps, in order, against one fresh cluster. Each check prints `ok <name>` or
// throws; the caller deletes the cluster whatever happens.
import { mkdtemp } from 'node:fs/promises';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleAppSpec } from '@sandbox/testing';
import { canIMatrix } from './can-i';
import { createCluster } from './cluster';
import { clusterFacts } from './cluster-facts';
import { drainNode } from './drain';
import { egressMatrix, matrixViolations, type EgressRow, type ProbeOutcome } from './egress-matrix';
import type { Exec } from './exec';
import {
  buildImageArchives,
  imagesWithoutArchive,
  installOverlay,
  renderWithKubectl,
  SYSTEM_NAMESPACE,
} from './install';
import { createKubectl, type Kubectl } from './kubectl';
import { ensureNodeImage } from './node-image';
import { connectFromPod, isGvisorKernel, podKernel } from './pod-probes';
import type { Tools } from './prerequisites';
import type { SuiteResources } from './suite-resources';
import { runSdkClient } from './sdk-client-pod';
import { appPods, declareApp, waitForReadyPods, waitForRunners, type AppPod } from './system-flow';

type Log = (line: string) => void;

function check(log: Log, name: string, failures: string[]): void {
  if (failures.length > 0) throw new Error(`FAILED ${name}:\n  ${failures.join('\n  ')}`);
  log(`ok   ${name}`);
}

const expectEqual = (what: string, actual: unknown, expected: unknown) =>
  JSON.stringify(actual) === JSON.stringify(expected)
    ? []
    : [`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];

async function probeMatrix(kubectl: Kubectl, pod: AppPod, rows: EgressRow[]): Promise<ProbeOutcome[]> {
  const outcomes: ProbeOutcome[] = [];
  for (const row of rows) outcomes.push(await connectFromPod(kubectl, 'sandbox-apps', pod.name, row));
  return outcomes;
}

async function gvisorChecks(kubectl: Kubectl, pods: AppPod[], log: Log): Promise<void> {
  check(
    log,
    'app pods run under RuntimeClass gvisor',
    pods.flatMap((p) => expectEqual(p.name, p.runtimeClassName, 'gvisor')),
  );
  const failures: string[] = [];
  for (const pod of pods) {
    const kernel = await podKernel(kubectl, 'sandbox-apps', pod.name);
    if (!isGvisorKernel(kernel, release())) failures.push(`${pod.name} sees ${kernel.version}`);
  }
  // The control: a system pod (runc) sees the node's own kernel, so the probe tells the two apart.
  const manager = await kubectl.json<{ items: { metadata: { name: string } }[] }>([
    '-n',
    SYSTEM_NAMESPACE,
    'get',
    'pods',
    '-l',
    'app.kubernetes.io/name=instance-manager',
  ]);
  const control = await podKernel(kubectl, SYSTEM_NAMESPACE, manager.items[0]?.metadata.name ?? '');
  failures.push(...expectEqual('a runc pod kernel release', control.release, release()));
  check(log, "app pods' kernel is gVisor's, not the node's", failures);
}

async function systemFlow(kubectl: Kubectl, resources: SuiteResources, image: string, log: Log) {
  const manager = await kubectl.portForward(SYSTEM_NAMESPACE, 'svc/instance-manager', 7101);
  const node = await kubectl.portForward(SYSTEM_NAMESPACE, 'svc/livepeer-node', 8935);
  resources.forwards.push(manager, node);
  const token = await kubectl.secretValue(SYSTEM_NAMESPACE, 'instance-manager-api-tokens', 'admin');
  await declareApp(
    manager.url,
    token,
    'echo',
    exampleAppSpec(image, { kind: 'single-session', warmPool: 2, max: 3 }, { egress: 'none' }),
  );
  await declareApp(
    manager.url,
    token,
    'echo-net',
    exampleAppSpec(image, { kind: 'single-session', warmPool: 1, max: 2 }, { egress: 'internet' }),
  );
  const echo = await waitForReadyPods(kubectl, 'echo', 2);
  const echoNet = await waitForReadyPods(kubectl, 'echo-net', 1);
  log('ok   apps declared through the instance-manager API have ready pods');
  await gvisorChecks(kubectl, [...echo, ...echoNet], log);
  await waitForRunners(node.url, 'echo', 2);
  log('ok   the app pods are registered with Node (node-sim)');
  const client = await runSdkClient(kubectl, 'echo');
  check(log, 'the Python SDK discovers, reserves, calls HTTP/SSE/WebSocket through Node and stops', [
    ...expectEqual('client pod', client.phase, 'Succeeded'),
    ...expectEqual(
      'steps',
      client.steps.map((s) => s.step),
      ['discovered', 'reserved', 'http', 'sse', 'ws', 'stopped'],
    ),
    ...expectEqual('echo', client.steps.find((s) => s.step === 'http')?.['echoed'], { via: 'sdk' }),
    ...expectEqual('sse events', client.steps.find((s) => s.step === 'sse')?.['count'], 3),
    ...expectEqual('ws', client.steps.find((s) => s.step === 'ws')?.['data'], 'hello-through-node'),
  ]);
  return { echo: echo[0] as AppPod, echoNet: echoNet[0] as AppPod };
}

async function egressChecks(kubectl: Kubectl, pods: { echo: AppPod; echoNet: AppPod }, log: Log) {
  const [echo] = (await appPods(kubectl, 'echo')).filter((p) => p.ready);
  const none = egressMatrix(await clusterFacts(kubectl, { ip: pods.echoNet.ip, port: 8080 }), 'none');
  const internet = egressMatrix(
    await clusterFacts(kubectl, { ip: (echo ?? pods.echo).ip, port: 8080 }),
    'internet',
  );
  check(
    log,
    `egress: none (${none.length} destinations)`,
    matrixViolations(none, await probeMatrix(kubectl, echo ?? pods.echo, none)),
  );
  check(
    log,
    `egress: internet (${internet.length} destinations)`,
    matrixViolations(internet, await probeMatrix(kubectl, pods.echoNet, internet)),
  );
}

async function drainCheck(kubectl: Kubectl, resources: SuiteResources, log: Log) {
  const drain = await kubectl.portForward(SYSTEM_NAMESPACE, 'svc/drain-controller', 7103);
  resources.forwards.push(drain);
  const token = await kubectl.secretValue(SYSTEM_NAMESPACE, 'drain-controller-api-tokens', 'admin');
  const phases = await drainNode(drain.url, token);
  check(
    log,
    `a drain with a 30 s window ends done (${phases.map((p) => p.phase).join(' → ')})`,
    expectEqual('phase', phases.at(-1)?.phase, 'done'),
  );
  await kubectl.run(
    ['-n', SYSTEM_NAMESPACE, 'rollout', 'status', 'deployment/livepeer-node', '--timeout=300s'],
    { timeoutMs: 320_000 },
  );
  const node = await kubectl.portForward(SYSTEM_NAMESPACE, 'svc/livepeer-node', 8935);
  resources.forwards.push(node);
  await waitForRunners(node.url, 'echo', 1);
  log('ok   the replaced Node has the runners registered again');
}

/** Runs every step; `resources` collects what the caller must release. */
export async function runSuite(exec: Exec, tools: Tools, resources: SuiteResources, log: Log): Promise<void> {
  const nodeImage = await ensureNodeImage(exec, log);
  log(`ok   node image ${nodeImage} (k3s with runsc and containerd-shim-runsc-v1)`);
  const outDir = await mkdtemp(join(tmpdir(), 'k3d-images-'));
  resources.dirs.push(outDir);
  const archives = await buildImageArchives(exec, outDir, log);
  log(`ok   ${archives.length} image archives in the OCI and docker layouts`);
  resources.cluster = await createCluster(exec, tools.k3d, nodeImage, log);
  const kubectl = createKubectl(exec, tools.kubectl, resources.cluster.kubeconfig);
  resources.kubectl = kubectl;
  check(
    log,
    'the pinned k3d overlay names only images just built',
    imagesWithoutArchive(await renderWithKubectl(kubectl, outDir), archives),
  );
  await resources.cluster.importImages(archives.map((a) => a.file));
  log(`ok   cluster ${resources.cluster.name} created, images imported`);
  await installOverlay(exec, kubectl, outDir, log);
  log('ok   k3d overlay applied, every rollout complete');
  const image =
    archives.find((a) => a.reference.startsWith('localhost/sandbox-example-app:'))?.reference ?? '';
  const pods = await systemFlow(kubectl, resources, image, log);
  await egressChecks(kubectl, pods, log);
  check(
    log,
    'RBAC: kubectl auth can-i matrix for every service account',
    await canIMatrix(exec, tools.kubectl, kubectl.kubeconfig),
  );
  await drainCheck(kubectl, resources, log);
}
