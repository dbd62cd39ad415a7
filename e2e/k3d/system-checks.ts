// The system flow on the cluster: priced apps declared through the instance-manager API, their pods
// under gVisor, registered with Node (node-sim), then discovered, paid for and reached by the official
// Python SDK from a pod.
import { exampleAppSpec } from '@sandbox/testing';
import { check, expectEqual, type Log } from './check';
import { SYSTEM_NAMESPACE } from './install';
import { podKernel, isGvisorKernel } from './pod-probes';
import type { ClusterProvider } from './provider';
import { runSdkClient } from './sdk-client-pod';
import { declareApp, waitForReadyPods, waitForRunners, type AppPod } from './system-flow';

/** What the later checks work with. */
export interface SystemContext {
  provider: ClusterProvider;
  /** The example app's image and the SDK client's, both imported. */
  images: { app: string; client: string };
  managerUrl: string;
  managerToken: string;
  nodeUrl: string;
}

/** A price the adapter accepts and node-sim (paid mode) charges for by time. */
export const APP_PRICE = { usd: '0.5', unit: 'hour' } as const;

async function gvisorChecks(provider: ClusterProvider, pods: AppPod[], log: Log): Promise<void> {
  check(
    log,
    'app pods run under RuntimeClass gvisor',
    pods.flatMap((p) => expectEqual(p.name, p.runtimeClassName, 'gvisor')),
  );
  const node = await provider.nodeKernel();
  const failures: string[] = [];
  for (const pod of pods) {
    const kernel = await podKernel(provider.kubectl, 'sandbox-apps', pod.name);
    if (!isGvisorKernel(kernel, node.release)) failures.push(`${pod.name} sees ${kernel.version}`);
  }
  // The control: outside gVisor the same probe sees the node's kernel, so it tells the two apart.
  if (isGvisorKernel(node, node.release)) failures.push(`the control reads as gVisor: ${node.version}`);
  check(log, "app pods' kernel is gVisor's, not the node's", failures);
}

/** Declares `echo` (egress none) and `echo-net` (egress internet), checks them, runs the SDK client. */
export async function systemFlow(context: SystemContext, log: Log) {
  const { provider, images, managerUrl, managerToken, nodeUrl } = context;
  const priced = { price: APP_PRICE };
  await declareApp(
    managerUrl,
    managerToken,
    'echo',
    exampleAppSpec(
      images.app,
      { kind: 'single-session', warmPool: 2, max: 3 },
      { egress: 'none', ...priced },
    ),
  );
  await declareApp(
    managerUrl,
    managerToken,
    'echo-net',
    exampleAppSpec(
      images.app,
      { kind: 'single-session', warmPool: 1, max: 2 },
      { egress: 'internet', ...priced },
    ),
  );
  const echo = await waitForReadyPods(provider.kubectl, 'echo', 2);
  const echoNet = await waitForReadyPods(provider.kubectl, 'echo-net', 1);
  log('ok   apps declared through the instance-manager API have ready pods');
  await gvisorChecks(provider, [...echo, ...echoNet], log);
  await waitForRunners(nodeUrl, 'echo', 2);
  log('ok   the app pods are registered with Node (node-sim, paid mode)');
  const client = await runSdkClient(provider.kubectl, 'echo', images.client);
  check(log, 'the Python SDK discovers, pays for, calls HTTP/SSE/WebSocket through Node and stops', [
    ...expectEqual('client pod', client.phase, 'Succeeded'),
    ...expectEqual(
      'steps',
      client.steps.map((s) => s.step),
      ['discovered', 'reserved', 'http', 'sse', 'ws', 'stopped'],
    ),
    ...expectEqual('paid', client.steps.find((s) => s.step === 'reserved')?.['paid'], true),
    ...expectEqual('echo', client.steps.find((s) => s.step === 'http')?.['echoed'], { via: 'sdk' }),
    ...expectEqual('sse events', client.steps.find((s) => s.step === 'sse')?.['count'], 3),
    ...expectEqual('ws', client.steps.find((s) => s.step === 'ws')?.['data'], 'hello-through-node'),
  ]);
  return { echo: echo[0] as AppPod, echoNet: echoNet[0] as AppPod };
}

/** The instance-manager's and Node's URLs from this host, and the manager's admin token. */
export async function systemEndpoints(provider: ClusterProvider) {
  return {
    managerUrl: await provider.serviceUrl(SYSTEM_NAMESPACE, 'instance-manager', 7101),
    nodeUrl: await provider.serviceUrl(SYSTEM_NAMESPACE, 'livepeer-node', 8935),
    managerToken: await provider.kubectl.secretValue(
      SYSTEM_NAMESPACE,
      'instance-manager-api-tokens',
      'admin',
    ),
  };
}
