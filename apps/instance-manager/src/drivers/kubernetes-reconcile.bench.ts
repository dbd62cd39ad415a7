// How soon the kubernetes driver reacts, on a real kube-apiserver (tools/kube-harness; needs Go), as
// the instance-manager service account. No kubelet runs: the bench writes the pod status a kubelet
// would write. Figures: pod status Ready written → waitForReady resolved; an app NetworkPolicy opened
// by someone else → restored by the driver. Run:
//   node --import tsx apps/instance-manager/src/drivers/kubernetes-reconcile.bench.ts
import { join } from 'node:path';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { appNetworkPolicyName } from '@sandbox/kube';
import { DEPLOY, serviceAccountKubeConfig, startDeployedHarness } from '@sandbox/kube-harness';
import { createTestAccess, percentile, printFigure, waitFor } from '@sandbox/testing';
import { pino } from 'pino';
import { systemClock } from '@sandbox/service-kit';
import { InstanceManagerConfigSchema } from '../config';
import { singleSessionSpec } from '../domain/spec-fixtures.fixture';
import { connectKubernetesRuntime } from './kubernetes-connect';
import { writeKubeconfigVia } from './kubernetes-driver.fixture';

const SAMPLES = 20;
const APP = 'bench';
const APPS = DEPLOY.appsNamespace;
const spec = singleSessionSpec(1, 2);
const access = createTestAccess();
const deployed = await startDeployedHarness();
const core = deployed.admin.makeApiClient(CoreV1Api);
const networking = deployed.admin.makeApiClient(NetworkingV1Api);
const account = await serviceAccountKubeConfig(deployed.admin, DEPLOY.systemNamespace, 'instance-manager');
const kubeconfig = join(deployed.harness.dir, 'instance-manager-bench.kubeconfig');
const config = InstanceManagerConfigSchema.parse({
  DRIVER: 'kubernetes',
  KUBECONFIG_PATH: await writeKubeconfigVia(account, deployed.harness.server, kubeconfig),
  KUBE_NAMESPACE: APPS,
  ...access.env,
});
const driver = connectKubernetesRuntime(config, pino({ level: 'silent' }), systemClock);
const fast = { timeoutMs: 10_000, intervalMs: 2 };

/** Writes the status a kubelet writes once the app container runs and its probe passes. */
async function markReady(name: string, sample: number): Promise<void> {
  const pod = await core.readNamespacedPod({ name, namespace: APPS });
  pod.status = {
    phase: 'Running',
    podIP: `10.42.0.${10 + sample}`,
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [
      { name: 'app', image: spec.image, imageID: '', ready: true, restartCount: 0, state: { running: {} } },
    ],
  };
  await core.replaceNamespacedPodStatus({ name, namespace: APPS, body: pod });
}

async function readinessLatency(sample: number): Promise<number> {
  const instance = { instanceId: `bench${String(sample).padStart(5, '0')}`, app: APP };
  await driver.start({ ...instance, templateHash: 'h1', spec });
  await waitFor(async () => (await driver.list()).some((found) => found.instanceId === instance.instanceId), {
    description: 'the pod in the cache',
    ...fast,
  });
  const ready = driver.waitForReady(instance, spec, { timeoutMs: 30_000, intervalMs: 100 });
  const started = performance.now();
  await markReady(`${APP}-${instance.instanceId}`, sample);
  await ready;
  const latency = performance.now() - started;
  await driver.stop(instance);
  return latency;
}

async function repairLatency(): Promise<number> {
  const name = appNetworkPolicyName(APP);
  const policy = await networking.readNamespacedNetworkPolicy({ name, namespace: APPS });
  const opened = {
    ...policy,
    spec: { ...policy.spec, podSelector: policy.spec?.podSelector ?? {}, egress: [{}] },
  };
  const started = performance.now();
  await networking.replaceNamespacedNetworkPolicy({ name, namespace: APPS, body: opened });
  await waitFor(
    async () =>
      ((await networking.readNamespacedNetworkPolicy({ name, namespace: APPS })).spec?.egress ?? [])
        .length === 0,
    { description: 'the policy restored', ...fast },
  );
  return performance.now() - started;
}

try {
  await driver.open();
  await waitFor(async () => driver.synced(), { description: 'the driver synced', ...fast });
  await driver.ensureApp(APP, spec);
  const ready: number[] = [];
  const repaired: number[] = [];
  for (let sample = 1; sample <= SAMPLES; sample += 1) {
    ready.push(await readinessLatency(sample));
    repaired.push(await repairLatency());
  }
  printFigure('kube_pod_ready_to_wait_resolved_p50_ms', percentile(ready, 50), ready.length);
  printFigure('kube_pod_ready_to_wait_resolved_p95_ms', percentile(ready, 95), ready.length);
  printFigure('kube_policy_opened_to_restored_p50_ms', percentile(repaired, 50), repaired.length);
  printFigure('kube_policy_opened_to_restored_p95_ms', percentile(repaired, 95), repaired.length);
} finally {
  await driver.removeApp(APP).catch(() => undefined);
  await driver.close();
  await deployed.harness.stop();
  access.cleanup();
}
