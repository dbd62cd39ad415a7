import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { buildInstancePod } from '@sandbox/kube';
import { runCommand, type SandboxDriver } from '@sandbox/sandbox-local';
import { waitFor } from '@sandbox/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { serviceAccountKubeConfig } from '../control-plane/service-accounts';
import { exampleAppSpec } from '../test-support/app-spec.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';
import {
  describeWithKubeAsRoot,
  HARNESS_START_TIMEOUT_MS,
  testLogger,
} from '../test-support/describe-with-kube.fixture';
import { exampleImage, isReady, readPod, runnerDriver, waitForPod } from '../test-support/pod-runner.fixture';
import { instanceIdForPod } from './pod-plan';
import { startPodRunner, type PodRunner } from './pod-runner';

const APPS = DEPLOY.appsNamespace;
const PREFIX = 'khr';
const SUBNET = '10.219.0.0/24';
const NODE = 'harness-node-1';

let deployed: DeployedHarness;
let admin: KubeConfig;
let manager: CoreV1Api;
let driver: SandboxDriver;
let runner: PodRunner;
let image = '';
let counter = 0;

/** Creates one of our instance pods as instance-manager does (its own token), and returns its name. */
async function createOurPod(healthPath = '/healthz'): Promise<string> {
  counter += 1;
  const pod: V1Pod = buildInstancePod({
    namespace: APPS,
    app: 'demo',
    instanceId: `run${String(counter).padStart(7, '0')}`,
    templateHash: 'abc123',
    spec: exampleAppSpec(image, { healthCheck: { type: 'http', path: healthPath } }),
  });
  await manager.createNamespacedPod({ namespace: APPS, body: pod });
  return pod.metadata?.name ?? '';
}

const running = (pod: V1Pod) => pod.status?.phase === 'Running';

describeWithKubeAsRoot('pod runner: a stand-in kubelet running pods through the local gVisor driver', () => {
  beforeAll(async () => {
    image = await exampleImage();
    deployed = await startDeployedHarness();
    admin = deployed.admin;
    manager = (
      await serviceAccountKubeConfig(admin, DEPLOY.systemNamespace, 'instance-manager')
    ).makeApiClient(CoreV1Api);
    driver = runnerDriver(PREFIX, SUBNET);
    runner = await startPodRunner({
      kubeConfig: admin,
      driver,
      logger: testLogger,
      nodeName: NODE,
      scheduleNamespaces: [APPS],
    });
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await runner?.stop();
    const left = driver ? await driver.list() : [];
    for (const found of left) await driver.stop(found.instanceId);
    await deployed?.harness.stop();
    expect(left).toEqual([]);
  }, 120_000);

  it('binds our pod to its node, runs it under gVisor, and reports it Running and Ready at its pod IP', async () => {
    const name = await createOurPod();
    const pod = await waitForPod(admin, APPS, name, 'to be Ready', isReady);
    expect(pod.spec?.nodeName).toBe(NODE);
    expect(pod.status?.podIP).toMatch(/^10\.219\.0\.\d+$/);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({
      name: 'app',
      ready: true,
      state: { running: {} },
    });
    const health = await fetch(`http://${pod.status?.podIP}:8080/healthz`);
    expect(health.status).toBe(200);
    const instance = (await driver.list()).find(
      (found) => found.instanceId === instanceIdForPod(pod.metadata?.uid ?? ''),
    );
    expect(instance).toMatchObject({ complete: true, labels: { 'pod-name': name, 'pod-namespace': APPS } });
  }, 120_000);

  it('keeps a pod whose readiness probe fails Running but not Ready', async () => {
    const name = await createOurPod('/not-a-route');
    const pod = await waitForPod(admin, APPS, name, 'to be Running', running);
    // The probe runs every second and must fail three times in a row before anything changes.
    await sleep(4_000);
    expect(isReady(pod)).toBe(false);
    expect(isReady((await readPod(admin, APPS, name)) ?? {})).toBe(false);
    expect(await fetch(`http://${pod.status?.podIP}:8080/not-a-route`).then((res) => res.status)).toBe(404);
  }, 120_000);

  it('fails the pod when its container exits (restartPolicy Never)', async () => {
    const name = await createOurPod();
    const pod = await waitForPod(admin, APPS, name, 'to be Ready', isReady);
    const instanceId = instanceIdForPod(pod.metadata?.uid ?? '');
    await runCommand('podman', ['kill', `${PREFIX}-${instanceId}`]);
    const failed = await waitForPod(admin, APPS, name, 'to fail', (p) => p.status?.phase === 'Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toBeDefined();
    expect(isReady(failed)).toBe(false);
  }, 120_000);

  it('removes the instance and the pod when the pod is deleted', async () => {
    const name = await createOurPod();
    const pod = await waitForPod(admin, APPS, name, 'to be Ready', isReady);
    const instanceId = instanceIdForPod(pod.metadata?.uid ?? '');
    await manager.deleteNamespacedPod({ name, namespace: APPS });
    await waitFor(async () => (await readPod(admin, APPS, name)) === undefined, {
      description: `pod ${name} to be gone from the API`,
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    expect((await driver.list()).map((found) => found.instanceId)).not.toContain(instanceId);
  }, 120_000);

  it('carries on across an API server restart', async () => {
    const before = await createOurPod();
    await waitForPod(admin, APPS, before, 'to be Ready', isReady);
    await deployed.harness.restartApiServer();
    const after = await createOurPod();
    await waitForPod(admin, APPS, after, 'to be Ready after the restart', isReady);
    await manager.deleteNamespacedPod({ name: before, namespace: APPS });
    await waitFor(async () => (await readPod(admin, APPS, before)) === undefined, {
      description: `pod ${before} to be removed after the restart`,
      timeoutMs: 60_000,
      intervalMs: 100,
    });
  }, 180_000);
});
