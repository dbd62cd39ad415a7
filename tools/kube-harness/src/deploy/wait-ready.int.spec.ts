// deploy/wait-ready.sh against the real kube-apiserver. No controller runs here: each case writes the
// Deployments' status itself, as the Deployment controller and the kubelet would report it.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppsV1Api,
  type KubeConfig,
  type V1Deployment,
  type V1DeploymentStatus,
} from '@kubernetes/client-node';
import { startKubeHarness, type KubeHarness } from '../control-plane/kube-harness';
import { applyObjects, DEPLOY_DIR, renderKustomization } from '../manifests/manifests';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { requireKubectl } from '../test-support/kubectl.fixture';

const SCRIPT = join(DEPLOY_DIR, 'wait-ready.sh');
const NS = 'sandbox-system';

let harness: KubeHarness;
let admin: KubeConfig;
let home = '';
let kubectl = '';

const deployment = (name: string, replicas: number, standby: boolean): V1Deployment => ({
  metadata: { name, namespace: NS, labels: standby ? { 'sandbox-runtime/lease-standby': 'true' } : {} },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'localhost/none' }] },
    },
  },
});

/** `available`: the Available condition (with maxUnavailable: 100 %, True even with no replica available). */
async function setStatus(
  name: string,
  status: Omit<V1DeploymentStatus, 'observedGeneration'>,
  available: 'True' | 'False',
) {
  const apps = admin.makeApiClient(AppsV1Api);
  const current = await apps.readNamespacedDeployment({ name, namespace: NS });
  const observedGeneration = current.metadata?.generation;
  const conditions = [{ type: 'Available', status: available, reason: 'MinimumReplicasAvailable' }];
  await apps.replaceNamespacedDeploymentStatus({
    name,
    namespace: NS,
    body: { ...current, status: { ...status, observedGeneration, conditions } },
  });
}

function run(args: string[]) {
  const result = spawnSync('sh', [...args], {
    env: { PATH: process.env['PATH'], HOME: home, KUBECONFIG: harness.kubeconfigPath, KUBECTL: kubectl },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describeWithKube('deploy/wait-ready.sh', () => {
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kubectl-home-'));
    harness = await startKubeHarness();
    kubectl = await requireKubectl(process.env);
    admin = await harness.adminConfig();
    const namespaces = (
      await renderKustomization(harness.binaries.kustomize, join(DEPLOY_DIR, 'cluster'))
    ).filter((object) => object.kind === 'Namespace');
    await applyObjects(admin, namespaces);
    const apps = admin.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment('plain', 1, false) });
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment('holder', 2, true) });
    await setStatus(
      'plain',
      { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
      'True',
    );
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await harness?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  }, 60_000);

  it('waits for a lease Deployment that is Available with no pod ready, where condition=Available does not', async () => {
    // maxUnavailable: 100%: Available with none ready.
    await setStatus('holder', { replicas: 2, updatedReplicas: 2 }, 'True');
    const available = run([
      '-c',
      `"$KUBECTL" -n ${NS} wait --for=condition=Available deployment/holder --timeout=5s`,
    ]);
    expect(available.status).toBe(0);
    const waited = run([SCRIPT, '4']);
    expect(waited.status).toBe(1);
    expect(waited.output).toContain('deployment.apps/holder: not ready after 4s (2 of 2 updated, 0 ready)');
  }, 60_000);

  it('ends once the holder is ready, the standby unready', async () => {
    await setStatus(
      'holder',
      { replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1 },
      'True',
    );
    const waited = run([SCRIPT, '10']);
    expect(waited).toMatchObject({ status: 0 });
    expect(waited.output).toContain('deployment.apps/holder: 1 of 2 ready');
  }, 60_000);

  it('waits for every replica of the other Deployments (rollout status)', async () => {
    await setStatus('plain', { replicas: 1, updatedReplicas: 1 }, 'False');
    const waited = run([SCRIPT, '3']);
    expect(waited.status).not.toBe(0);
    expect(waited.output).toContain('plain');
  }, 60_000);
});
