import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import {
  canI,
  DEPLOY,
  serviceAccountKubeConfig,
  startDeployedHarness,
  type AccessQuestion,
  type DeployedHarness,
} from '@sandbox/kube-harness';
import type { DrainRecord } from '@sandbox/protocol';
import { createTestAccess, describeRequiring, goOnPath, waitFor } from '@sandbox/testing';
import { startDrainWorld, type DrainWorld } from '../__fixtures__/drain-world';
import { createKubernetesDriver, FIELD_MANAGER, RESTARTED_AT_ANNOTATION } from './kubernetes-driver';

// The kubernetes driver against a real kube-apiserver with deploy/ applied, as the drain-controller's
// own service account. No controller-manager or kubelet runs there: a rollout never completes unless
// the test writes the Deployment's status subresource, as the deployment controller would.
const SYSTEM = DEPLOY.systemNamespace;
const NODE = DEPLOY.orchestratorDeployment;
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
const needs = [goOnPath()];
const runnable = needs.every((requirement) => requirement.met);
const describeKube = describeRequiring(...needs);

let deployed: DeployedHarness;
let admin: AppsV1Api;
let own: KubeConfig;

const read = () => admin.readNamespacedDeployment({ name: NODE, namespace: SYSTEM });
/** Plays the deployment controller once: every pod of the current generation updated and available. */
async function completeRollout(): Promise<void> {
  const deployment = await read();
  await admin.replaceNamespacedDeploymentStatus({
    name: NODE,
    namespace: SYSTEM,
    body: {
      ...deployment,
      status: {
        observedGeneration: deployment.metadata?.generation ?? 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
    },
  });
}

const request = (restartedAt: string, image?: string) => ({
  drainId: 'drain-kube-1',
  target: image === undefined ? ({ restart: true } as const) : { image },
  restartedAt,
});

beforeAll(async () => {
  if (!runnable) return;
  deployed = await startDeployedHarness();
  admin = deployed.admin.makeApiClient(AppsV1Api);
  const labels = { 'app.kubernetes.io/name': NODE };
  await admin.createNamespacedDeployment({
    namespace: SYSTEM,
    body: {
      metadata: { name: NODE },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: NODE, image: 'livepeer/node:1.0.0' }] },
        },
      },
    },
  });
  own = await serviceAccountKubeConfig(deployed.admin, SYSTEM, 'drain-controller');
}, 300_000);

afterAll(async () => {
  await deployed?.harness.stop();
}, 60_000);

describeKube('the kubernetes driver', () => {
  const driver = () =>
    createKubernetesDriver({
      apps: own.makeApiClient(AppsV1Api),
      namespace: SYSTEM,
      deployment: NODE,
      container: NODE,
    });

  it('applies the new image and the restart annotation with its field manager, once per drain', async () => {
    const before = (await read()).metadata?.generation ?? 0;
    await driver().replace(request('2026-06-01T03:00:00.000Z', 'livepeer/node:1.2.3'));
    const patched = await read();
    expect(patched.spec?.template.spec?.containers.map((c) => c.image)).toEqual(['livepeer/node:1.2.3']);
    expect(patched.spec?.template.metadata?.annotations?.[RESTARTED_AT_ANNOTATION]).toBe(
      '2026-06-01T03:00:00.000Z',
    );
    expect(patched.metadata?.generation).toBe(before + 1);
    const applied = patched.metadata?.managedFields?.find((entry) => entry.manager === FIELD_MANAGER);
    expect(applied?.operation).toBe('Apply');
    // The same drain again (a retry after a crash): nothing changes, no second rollout.
    await driver().replace(request('2026-06-01T03:00:00.000Z', 'livepeer/node:1.2.3'));
    expect((await read()).metadata?.generation).toBe(before + 1);
  });

  it('waits for the rollout through get, and sees it complete once the pods are updated', async () => {
    const restart = request('2026-06-01T04:00:00.000Z');
    await driver().replace(restart);
    expect((await read()).spec?.template.spec?.containers[0]?.image).toBe('livepeer/node:1.2.3');
    expect(await driver().readiness(restart)).toEqual({ ready: false, reason: 'rollout not observed yet' });
    await completeRollout();
    expect(await driver().readiness(restart)).toEqual({ ready: true });
    expect(await driver().readiness(request('2026-06-01T05:00:00.000Z'))).toMatchObject({ ready: false });
  });

  it('is allowed exactly get and patch on the orchestrator Deployment (SubjectAccessReview)', async () => {
    const ask = (verb: string, extra: Partial<AccessQuestion> = {}) =>
      canI(
        deployed.admin,
        { namespace: SYSTEM, name: 'drain-controller' },
        {
          verb,
          group: 'apps',
          resource: 'deployments',
          namespace: SYSTEM,
          name: NODE,
          ...extra,
        },
      );
    const allowed = await Promise.all(['get', 'patch'].map((verb) => ask(verb)));
    expect(allowed).toEqual([true, true]);
    const denied: Array<[string, Partial<AccessQuestion>]> = [
      ['update', {}],
      ['delete', {}],
      ['list', { name: undefined }],
      ['watch', { name: undefined }],
      ['create', { name: undefined }],
      ['patch', { name: 'redis' }],
      ['get', { namespace: DEPLOY.appsNamespace }],
      ['patch', { subresource: 'status' }],
      ['patch', { subresource: 'scale' }],
      ['get', { group: '', resource: 'pods', name: undefined }],
      ['delete', { group: '', resource: 'pods', name: undefined }],
      ['get', { group: '', resource: 'secrets', name: DEPLOY.adapterSecret }],
      ['patch', { resource: 'replicasets', name: undefined }],
    ];
    const answers = await Promise.all(denied.map(([verb, extra]) => ask(verb, extra)));
    expect(denied.filter((_, index) => answers[index])).toEqual([]);
  });
});

describeKube('a drain with the kubernetes driver', () => {
  let world: DrainWorld;
  const access = createTestAccess();
  const INSTANCES = ['kube-i-1', 'kube-i-2'];
  const allRegistered = async () => {
    const { runners } = await world.runners();
    return runners.length === INSTANCES.length && runners.every((runner) => runner.state === 'registered');
  };

  beforeAll(async () => {
    world = await startDrainWorld('drain-kube', { baseEnv: BASE_ENV, access });
    await world.registerInstances(INSTANCES);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await rm(kubeconfig, { force: true });
    access.cleanup();
  });

  const kubeconfig = join(tmpdir(), `drain-kube-${process.pid}.yaml`);

  async function drainWith(timeoutMs: string): Promise<DrainRecord> {
    await writeFile(kubeconfig, own.exportConfig(), { mode: 0o600 });
    const controller = await world.startController({
      ORCHESTRATOR_DRIVER: 'kubernetes',
      KUBECONFIG_PATH: kubeconfig,
      KUBE_NAMESPACE: SYSTEM,
      KUBE_DEPLOYMENT: NODE,
      KUBE_CONTAINER: NODE,
      NODE_READY_TIMEOUT_MS: timeoutMs,
    });
    const response = await fetch(`${controller.url}/v1/drains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...access.headers('admin') },
      body: JSON.stringify({
        window: '1m',
        quietPeriod: '0s',
        reason: 'kube',
        target: { image: 'livepeer/node:2.0.0' },
      }),
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as DrainRecord;
    return world
      .waitPhase(controller.url, id, ['awaiting-node', 'done', 'failed'], 30_000)
      .then(async (record) => {
        if (record.phase === 'awaiting-node' && timeoutMs !== '1000') await completeRollout();
        const end = await world.waitPhase(controller.url, id, ['done', 'failed', 'aborted'], 30_000);
        await controller.stop();
        return end;
      });
  }

  it('fails with the reason and resumes when the rollout never becomes ready', async () => {
    const pid = world.sim.pid();
    const failed = await drainWith('1000');
    expect(failed.phase).toBe('failed');
    expect(failed.lastError?.message).toMatch(
      /^the new Node was not ready within 1000 ms: rollout not observed yet/u,
    );
    expect(failed.history.map((change) => change.phase)).toEqual([
      'withdrawing',
      'draining',
      'cancelling',
      'replacing',
      'awaiting-node',
      'resuming',
      'failed',
    ]);
    expect((await read()).spec?.template.spec?.containers[0]?.image).toBe('livepeer/node:2.0.0');
    expect(world.sim.pid()).toBe(pid);
    await waitFor(allRegistered, { description: 'every instance registered again', timeoutMs: 10_000 });
  }, 90_000);

  it('finishes once the rollout completes', async () => {
    const done = await drainWith('30000');
    expect(done.phase).toBe('done');
    await waitFor(allRegistered, { description: 'every instance registered again', timeoutMs: 10_000 });
  }, 90_000);
});
