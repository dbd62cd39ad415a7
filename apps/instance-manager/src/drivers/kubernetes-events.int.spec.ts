import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { V1NetworkPolicy } from '@kubernetes/client-node';
import {
  DEPLOY,
  serviceAccountKubeConfig,
  startDeployedHarness,
  type DeployedHarness,
} from '@sandbox/kube-harness';
import { KubeConflictError, KubeInvalidError, appNetworkPolicyName, connectKube } from '@sandbox/kube';
import type { KubeApi } from '@sandbox/kube';
import { createMemoryLogger, createTestAccess, describeRequiring, goOnPath, waitFor } from '@sandbox/testing';
import { systemClock } from '@sandbox/service-kit';
import { InstanceManagerConfigSchema } from '../config';
import { singleSessionSpec } from '../domain/spec-fixtures.fixture';
import { connectKubernetesRuntime, KUBE_FIELD_MANAGER } from './kubernetes-connect';
import { writeKubeconfigVia } from './kubernetes-driver.fixture';
import type { InstanceRef, RuntimeDriver } from './runtime-driver';
import { InstanceNotReadyError, InstanceRefusedError } from './runtime-driver';

// The driver alone (no manager, so no periodic pass exists) against a real kube-apiserver with deploy/
// applied, as the instance-manager service account: whatever it repairs or notices, an event did.
const APPS = DEPLOY.appsNamespace;
const APP = 'evt';
const REPAIR_LOG = 'app NetworkPolicy missing or altered; re-applying';
const SOON = { timeoutMs: 10_000, intervalMs: 50 };

const needs = [goOnPath()];
const describeKube = describeRequiring(...needs);

const driverLog = createMemoryLogger('info');
const access = createTestAccess();
let deployed: DeployedHarness;
let kubeconfig = '';
let driver: RuntimeDriver;
let api: KubeApi;
const changes: InstanceRef[] = [];

function driverFor(namespace: string): RuntimeDriver {
  const config = InstanceManagerConfigSchema.parse({
    DRIVER: 'kubernetes',
    KUBECONFIG_PATH: kubeconfig,
    KUBE_NAMESPACE: namespace,
    ...access.env,
  });
  return connectKubernetesRuntime(config, driverLog.logger, systemClock);
}

const networking = () => deployed.admin.makeApiClient(NetworkingV1Api);
const readPolicy = () =>
  networking().readNamespacedNetworkPolicy({ name: appNetworkPolicyName(APP), namespace: APPS });
const ours = (policy: V1NetworkPolicy) =>
  policy.metadata?.managedFields?.find((entry) => entry.manager === KUBE_FIELD_MANAGER);

describeKube('kubernetes driver events against a real kube-apiserver', () => {
  beforeAll(async () => {
    deployed = await startDeployedHarness();
    const account = await serviceAccountKubeConfig(
      deployed.admin,
      DEPLOY.systemNamespace,
      'instance-manager',
    );
    const file = join(deployed.harness.dir, 'instance-manager-events.kubeconfig');
    kubeconfig = await writeKubeconfigVia(account, deployed.harness.server, file);
    api = connectKube({ namespace: APPS, fieldManager: KUBE_FIELD_MANAGER, kubeconfigPath: kubeconfig }).api;
    driver = driverFor(APPS);
    driver.watch?.((instance) => changes.push(instance));
    await driver.open();
    await waitFor(async () => driver.synced(), { description: 'the driver synced', ...SOON });
  }, 30 * 60_000);

  afterAll(async () => {
    access.cleanup();
    await driver?.close();
    await deployed?.harness.stop();
  }, 120_000);

  it('server-side applies the app policy as instance-manager; applying it again changes nothing', async () => {
    await driver.ensureApp(APP, singleSessionSpec(1, 2));
    const applied = await readPolicy();
    expect(ours(applied)?.operation).toBe('Apply');
    // A retried write: the same apply twice leaves the object as it was (same resource version).
    const pod = { instanceId: 'evt0000009', app: APP, templateHash: 'h1', spec: singleSessionSpec(1, 2) };
    const podOf = () =>
      deployed.admin
        .makeApiClient(CoreV1Api)
        .readNamespacedPod({ name: `${APP}-${pod.instanceId}`, namespace: APPS });
    await driver.start(pod);
    const created = await podOf();
    await driver.start(pod);
    expect((await podOf()).metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    await driver.stop(pod);
    const policy = await readPolicy();
    const desired = {
      apiVersion: policy.apiVersion,
      kind: policy.kind,
      metadata: { name: 'sandbox-app-evt-idem' },
      spec: policy.spec,
    };
    const first = await api.applyNetworkPolicy(desired);
    const again = await api.applyNetworkPolicy(desired);
    expect(again.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(await api.deleteNetworkPolicy('sandbox-app-evt-idem')).toBe('deleted');
  });

  it('repairs a policy someone else opened up by a server-side apply on the watch event', async () => {
    const original = await readPolicy();
    const repairs = driverLog.lines().filter((line) => line.includes(REPAIR_LOG)).length;
    const spec = { ...original.spec, podSelector: original.spec?.podSelector ?? {}, egress: [{}] };
    await networking().replaceNamespacedNetworkPolicy({
      name: appNetworkPolicyName(APP),
      namespace: APPS,
      body: { ...original, spec },
    });
    const restored = await waitFor(
      async () => {
        const policy = await readPolicy();
        return (policy.spec?.egress ?? []).length === 0 ? policy : undefined;
      },
      { description: 'the opened policy restored', ...SOON },
    );
    expect(restored.spec).toEqual(original.spec);
    expect(ours(restored)?.operation).toBe('Apply');
    expect(driverLog.lines().filter((line) => line.includes(REPAIR_LOG)).length).toBe(repairs + 1);
  });

  it('notices a deleted pod by its delete event, and ends a wait for its readiness', async () => {
    const instance = { instanceId: 'evt0000001', app: APP };
    await driver.start({ ...instance, templateHash: 'h1', spec: singleSessionSpec(1, 2) });
    await waitFor(async () => changes.some((change) => change.instanceId === instance.instanceId), {
      description: 'the pod added',
      ...SOON,
    });
    const waiting = driver
      .waitForReady(instance, singleSessionSpec(1, 2), { timeoutMs: 60_000, intervalMs: 100 })
      .catch((error: unknown) => error);
    const before = changes.length;
    await deployed.admin.makeApiClient(CoreV1Api).deleteNamespacedPod({
      name: `${APP}-${instance.instanceId}`,
      namespace: APPS,
      gracePeriodSeconds: 0,
    });
    expect(await waiting).toEqual(new InstanceNotReadyError('exited'));
    expect(changes.slice(before)).toContainEqual(instance);
    await waitFor(async () => (await driver.list()).length === 0, { description: 'the pod gone', ...SOON });
    // 404 on delete: already gone is done.
    await expect(driver.stop(instance)).resolves.toBeUndefined();
  });

  it('types the refusals: 409 on a stale write, 422 with the reason, 403 as a refused instance', async () => {
    const policy = await readPolicy();
    const stale = { ...policy, metadata: { name: policy.metadata?.name, resourceVersion: '1' } };
    await expect(api.applyNetworkPolicy(stale)).rejects.toBeInstanceOf(KubeConflictError);
    const invalid = await api
      .applyPod({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'evt-invalid' },
        spec: { containers: [] },
      })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(KubeInvalidError);
    expect((invalid as KubeInvalidError).reason).toContain('spec.containers');
    // The service account may not create pods outside the apps namespace.
    const elsewhere = driverFor('default');
    const refused = await elsewhere
      .start({ instanceId: 'evt0000002', app: APP, templateHash: 'h1', spec: singleSessionSpec(1, 2) })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InstanceRefusedError);
    expect((refused as Error).message).toBe(
      'the service account may not apply pod evt-evt0000002 (403 Forbidden)',
    );
    await driver.removeApp(APP);
    await driver.removeApp(APP);
  });
});
