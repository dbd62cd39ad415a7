import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import {
  MANAGED_POD_SELECTOR,
  buildAppNetworkPolicy,
  buildInstancePod,
  connectKube,
  createResilientInformer,
  isPodReady,
  networkPolicyApplyBody,
  podIdentity,
  podInstanceUrl,
  podRuntimeState,
  type KubeApi,
  type ResilientInformer,
} from '@sandbox/kube';
import { waitFor } from '@sandbox/testing';
import { startPodRunner, type PodRunner } from '../pod-runner/pod-runner';
import { serviceAccountKubeConfig } from '../control-plane/service-accounts';
import { exampleAppSpec } from '../test-support/app-spec.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';
import {
  describeWithKubeAsRoot,
  HARNESS_START_TIMEOUT_MS,
  testLogger,
} from '../test-support/describe-with-kube.fixture';
import { startFreezableProxy, type FreezableProxy } from '../test-support/freezable-proxy.fixture';
import { exampleImage, readPod, runnerDriver } from '../test-support/pod-runner.fixture';

const APPS = DEPLOY.appsNamespace;
/** Short, so the watchdog's relist is seen well within the client's own 30 s watch timeout. */
const SILENCE_MS = 3_000;
/** This spec applies with instance-manager's token, as instance-manager does: under its field manager. */
const FIELD_MANAGER = 'instance-manager';

let deployed: DeployedHarness;
let proxy: FreezableProxy;
let runner: PodRunner;
let api: KubeApi;
let informer: ResilientInformer<V1Pod>;
let image = '';
const deleted: string[] = [];

/** The manager's own token in a kubeconfig file whose server is the freezable proxy. */
async function managerKubeconfigFile(admin: KubeConfig, dir: string, port: number): Promise<string> {
  const account = await serviceAccountKubeConfig(admin, DEPLOY.systemNamespace, 'instance-manager');
  const config = JSON.parse(account.exportConfig()) as { clusters: { cluster: { server: string } }[] };
  for (const entry of config.clusters) entry.cluster.server = `https://127.0.0.1:${port}`;
  const file = join(dir, 'instance-manager.kubeconfig');
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

function instancePod(instanceId: string): V1Pod {
  const spec = exampleAppSpec(image);
  return buildInstancePod({ namespace: APPS, app: 'demo', instanceId, templateHash: 'abc123', spec });
}

const cached = (instanceId: string) =>
  informer.list().find((pod) => podIdentity(pod).instanceId === instanceId);

async function waitUntilReadyInCache(instanceId: string): Promise<V1Pod> {
  return waitFor(
    () => {
      const pod = cached(instanceId);
      return pod && podRuntimeState(pod) === 'running' && isPodReady(pod) ? pod : undefined;
    },
    { description: `instance ${instanceId} ready in the informer cache`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

describeWithKubeAsRoot(
  'kubernetes driver building blocks (@sandbox/kube) against the real API, with the pod runner',
  () => {
    beforeAll(async () => {
      image = await exampleImage();
      deployed = await startDeployedHarness();
      const { harness, admin } = deployed;
      proxy = await startFreezableProxy(Number(new URL(harness.server).port));
      const kubeconfigPath = await managerKubeconfigFile(admin, harness.dir, proxy.port);
      const connection = connectKube({ namespace: APPS, fieldManager: FIELD_MANAGER, kubeconfigPath });
      api = connection.api;
      informer = createResilientInformer({
        create: () => connection.createPodInformer(MANAGED_POD_SELECTOR),
        keyOf: (pod) => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
        logger: testLogger,
        name: 'lifecycle-test',
        silenceMs: SILENCE_MS,
        initialBackoffMs: 200,
        maxBackoffMs: 2_000,
      });
      informer.on('delete', (pod) => deleted.push(pod.metadata?.name ?? ''));
      informer.start();
      const driver = runnerDriver('khl', '10.219.1.0/24');
      runner = await startPodRunner({
        kubeConfig: admin,
        driver,
        logger: testLogger,
        scheduleNamespaces: [APPS],
      });
      await waitFor(() => informer.synced(), { description: 'the informer to sync', timeoutMs: 30_000 });
    }, HARNESS_START_TIMEOUT_MS);

    afterAll(async () => {
      await informer?.stop();
      await runner?.stop();
      await proxy?.close();
      await deployed?.harness.stop();
    }, 120_000);

    it('applies the app NetworkPolicy with the manager token (server-side; again changes nothing)', async () => {
      const policy = buildAppNetworkPolicy({
        namespace: APPS,
        app: 'demo',
        port: 8080,
        egress: 'none',
        orchestrator: {
          namespaceLabels: { 'kubernetes.io/metadata.name': DEPLOY.systemNamespace },
          podLabels: { app: 'node' },
        },
      });
      const body = networkPolicyApplyBody(policy, undefined);
      const applied = await api.applyNetworkPolicy(body);
      expect(applied.metadata?.managedFields?.map((entry) => entry.manager)).toContain(FIELD_MANAGER);
      const again = await api.applyNetworkPolicy(body);
      expect(again.metadata?.resourceVersion).toBe(applied.metadata?.resourceVersion);
    });

    it('creates an instance pod that becomes ready in the cache and answers at its URL', async () => {
      const applied = await api.applyPod(instancePod('life000001'));
      const again = await api.applyPod(instancePod('life000001'));
      // The pod runner may bind the pod in between; our own fields are what the retry must not touch.
      const ours = (pod: V1Pod) =>
        pod.metadata?.managedFields?.find((entry) => entry.manager === FIELD_MANAGER);
      expect(again.metadata?.uid).toBe(applied.metadata?.uid);
      expect(ours(again)).toEqual(ours(applied));
      const pod = await waitUntilReadyInCache('life000001');
      const url = podInstanceUrl(pod, 8080);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    }, 120_000);

    it('withdraws an instance: the pod leaves the cache and the host, and a second delete finds nothing', async () => {
      const name = cached('life000001')?.metadata?.name ?? '';
      expect(await api.deletePod(name)).toBe('deleted');
      await waitFor(() => deleted.includes(name), {
        description: `a delete event for ${name}`,
        timeoutMs: 60_000,
      });
      expect(cached('life000001')).toBeUndefined();
      expect(await readPod(deployed.admin, APPS, name)).toBeUndefined();
      expect(await api.deletePod(name)).toBe('absent');
    }, 120_000);

    it('recovers after the API server restarts', async () => {
      await deployed.harness.restartApiServer();
      expect((await api.applyPod(instancePod('life000002'))).metadata?.uid).toBeDefined();
      await waitUntilReadyInCache('life000002');
      expect(informer.synced()).toBe(true);
    }, 120_000);

    it('relists when its watch goes silent, and sees what the silent watch missed', async () => {
      const pod = await waitUntilReadyInCache('life000002');
      const name = pod.metadata?.name ?? '';
      const restarts = informer.restarts();
      proxy.freezeOpenConnections();
      await deployed.admin.makeApiClient(CoreV1Api).deleteNamespacedPod({ name, namespace: APPS });
      await waitFor(() => deleted.includes(name), {
        description: `the watchdog's relist to report ${name} deleted`,
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      expect(informer.restarts()).toBeGreaterThan(restarts);
    }, 60_000);

    it('cleans up the app NetworkPolicy', async () => {
      expect(await api.deleteNetworkPolicy('sandbox-app-demo')).toBe('deleted');
      expect(await api.deleteNetworkPolicy('sandbox-app-demo')).toBe('absent');
    });
  },
);
