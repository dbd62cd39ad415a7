import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import {
  DEPLOY,
  instanceIdForPod,
  serviceAccountKubeConfig,
  startDeployedHarness,
  startFreezableProxy,
  startPodRunner,
  type DeployedHarness,
  type FreezableProxy,
  type PodRunner,
} from '@sandbox/kube-harness';
import {
  asRoot,
  createMemoryLogger,
  createTestAccess,
  describeRequiring,
  goOnPath,
  startRedis,
  uniquePrefix,
  waitFor,
  type RedisFixture,
} from '@sandbox/testing';
import type { SandboxDriver } from '@sandbox/sandbox-local';
import { pino } from 'pino';
import { systemClock } from '@sandbox/service-kit';
import { InstanceManagerConfigSchema } from '../config';
import type { InstanceRecord } from '../store/instance-record';
import {
  exampleAppSpec,
  exampleImage,
  hostLeftovers,
  testLocalDriver,
} from '../test-support/local-host.fixture';
import { adapterSide, startManager, testSettings } from '../test-support/manager-harness.fixture';
import type { ApiClient } from '../test-support/manager-harness.fixture';
import { MANAGED_POD_SELECTOR } from '@sandbox/kube';
import { connectKubernetesRuntime } from './kubernetes-connect';
import { managedPods, podOfInstance, sameInstances, writeKubeconfigVia } from './kubernetes-driver.fixture';

// The manager with DRIVER=kubernetes against a real kube-apiserver with deploy/ applied, as the
// instance-manager service account, on real Redis; a pod runner plays the node (gVisor instances).
const APPS = DEPLOY.appsNamespace;
const APP = 'demo';
const PREFIX = 'imk';
const SUBNET = '10.216.6.0/24';
/** Far below client-node's own 30 s watch inactivity timeout, so only the watchdog explains a relist. */
const SILENCE_MS = 3_000;
const LONG = { timeoutMs: 60_000, intervalMs: 100 };
const RELIST_LOG = 'informer silent; relisting';
const access = createTestAccess();

const needs = [asRoot, goOnPath()];
const describeKube = describeRequiring(...needs);

const quiet = pino({ level: 'silent' });
const driverLog = createMemoryLogger('info');
let redis: RedisFixture;
let deployed: DeployedHarness;
let proxy: FreezableProxy;
let runner: PodRunner;
let manager: Awaited<ReturnType<typeof startManager>>;
let adapter: Awaited<ReturnType<typeof adapterSide>>;
let api: ApiClient;
let core: CoreV1Api;
let hostDriver: SandboxDriver;

const pods = () => managedPods(core, APPS);
const podOf = async (id: string) => podOfInstance(await pods(), id);
const recordOf = async (id: string) => (await manager.store.get(id))?.record;
const live = async () => (await manager.store.listLive(APP)).map((entry) => entry.record);
const eventIds = async (name: string) =>
  (await adapter.instanceEvents())
    .filter((event) => event.name === name)
    .map((event) => String(event.data['instanceId']));
/** The pod runner's sandbox of that id is on this host. */
const onHost = async (hostId: string) =>
  (await hostDriver.list()).some((instance) => instance.instanceId === hostId);
const relists = () => driverLog.lines().filter((line) => line.includes(RELIST_LOG)).length;

/** Waits until the instance's record is in `state`, and returns it. */
const inState = (id: string, state: InstanceRecord['state'], timeoutMs = LONG.timeoutMs) =>
  waitFor(async () => ((await recordOf(id))?.state === state ? recordOf(id) : undefined), {
    description: `instance ${id} ${state}`,
    timeoutMs,
    intervalMs: 100,
  });

/** Waits for a ready instance other than `others`, checks its pod answers from the host, and returns it. */
async function readyOtherThan(others: string[]): Promise<InstanceRecord> {
  const found = await waitFor(
    async () => (await live()).find((record) => record.state === 'ready' && !others.includes(record.id)),
    { description: `a ready instance other than ${others.join()}`, ...LONG },
  );
  const pod = await podOf(found.id);
  expect(pod?.spec?.runtimeClassName).toBe(DEPLOY.runtimeClass);
  expect(found.url).toBe(`http://${pod?.status?.podIP}:8080`);
  expect((await fetch(`${found.url}/healthz`)).status).toBe(200);
  return found;
}

const converged = async () => sameInstances(await pods(), await live());

describeKube('instance-manager kubernetes driver against a real kube-apiserver', () => {
  let first = '';
  let second = '';
  let third = '';

  beforeAll(async () => {
    redis = await startRedis();
    const image = await exampleImage();
    deployed = await startDeployedHarness();
    core = deployed.admin.makeApiClient(CoreV1Api);
    proxy = await startFreezableProxy(Number(new URL(deployed.harness.server).port));
    hostDriver = await testLocalDriver(PREFIX, SUBNET, [redis.port]);
    runner = await startPodRunner({
      kubeConfig: deployed.admin,
      driver: hostDriver,
      logger: quiet,
      scheduleNamespaces: [APPS],
    });
    // The instance-manager's own service-account token, through the freezable proxy.
    const account = await serviceAccountKubeConfig(
      deployed.admin,
      DEPLOY.systemNamespace,
      'instance-manager',
    );
    const kubeconfig = join(deployed.harness.dir, 'instance-manager.kubeconfig');
    const config = InstanceManagerConfigSchema.parse({
      DRIVER: 'kubernetes',
      KUBECONFIG_PATH: await writeKubeconfigVia(account, `https://127.0.0.1:${proxy.port}`, kubeconfig),
      KUBE_NAMESPACE: APPS,
      REDIS_URL: redis.url,
      ...access.env,
    });
    const kube = connectKubernetesRuntime(config, driverLog.logger, systemClock, { silenceMs: SILENCE_MS });
    const settings = testSettings(uniquePrefix('imk'), uniquePrefix('q'), { readyTimeoutMs: 60_000 });
    adapter = await adapterSide(redis.url, settings.queuePrefix);
    manager = await startManager(redis.url, kube, settings);
    api = manager.api;
    await api
      .put(`/v1/apps/${APP}`)
      .send(exampleAppSpec(image, { kind: 'single-session', warmPool: 1, max: 2 }))
      .expect(201);
  }, 30 * 60_000);

  afterAll(async () => {
    access.cleanup();
    await manager?.stop();
    await adapter?.close();
    await runner?.stop();
    await proxy?.close();
    await deployed?.harness.stop();
    await redis?.stop();
    expect(await hostLeftovers(PREFIX)).toEqual([]);
  }, 120_000);

  it('creates a gvisor pod and the app NetworkPolicy with the manager token', async () => {
    const [record] = await waitFor(async () => ((await live()).length === 1 ? live() : undefined), {
      description: 'one instance record',
      ...LONG,
    });
    first = record?.id ?? '';
    const pod = await waitFor(() => podOf(first), { description: `pod of ${first}`, ...LONG });
    expect(pod.spec?.runtimeClassName).toBe(DEPLOY.runtimeClass);
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.metadata?.labels).toMatchObject({
      'sandbox-runtime/app': APP,
      'sandbox-runtime/kind': 'single-session',
    });
    const networking = deployed.admin.makeApiClient(NetworkingV1Api);
    const policy = await networking.readNamespacedNetworkPolicy({
      name: `sandbox-app-${APP}`,
      namespace: APPS,
    });
    expect(policy.spec?.podSelector?.matchLabels).toMatchObject({ 'sandbox-runtime/app': APP });
    expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec?.ingress?.[0]?.ports).toEqual([{ protocol: 'TCP', port: 8080 }]);
    // An empty list is not stored: the Egress policy type alone denies all egress.
    expect(policy.spec?.egress ?? []).toEqual([]);
  }, 90_000);

  it('re-creates the app NetworkPolicy within seconds when it is deleted or opened up', async () => {
    const networking = deployed.admin.makeApiClient(NetworkingV1Api);
    const name = `sandbox-app-${APP}`;
    const read = () => networking.readNamespacedNetworkPolicy({ name, namespace: APPS });
    const original = await read();
    await networking.deleteNamespacedNetworkPolicy({ name, namespace: APPS });
    const back = await waitFor(async () => read().catch(() => undefined), {
      description: 'the deleted policy re-created',
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(back.spec).toEqual(original.spec);
    await networking.replaceNamespacedNetworkPolicy({
      name,
      namespace: APPS,
      body: { ...back, spec: { ...back.spec, podSelector: back.spec?.podSelector ?? {}, egress: [{}] } },
    });
    await waitFor(async () => ((await read()).spec?.egress ?? []).length === 0, {
      description: 'the opened policy restored',
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  }, 60_000);

  it('keeps the address of a node that joins out of app egress', async () => {
    await core.createNode({
      body: {
        metadata: { name: 'joining-node' },
        status: { addresses: [{ type: 'InternalIP', address: '203.0.113.77' }] },
      },
    });
    try {
      await api
        .put(`/v1/apps/${APP}-web`)
        .send(
          exampleAppSpec(
            await exampleImage(),
            { kind: 'reusable', capacity: 1, minReplicas: 0, maxReplicas: 1 },
            { egress: 'internet' },
          ),
        )
        .expect(201);
      const networking = deployed.admin.makeApiClient(NetworkingV1Api);
      const excepts = async () =>
        (
          await networking
            .readNamespacedNetworkPolicy({ name: `sandbox-app-${APP}-web`, namespace: APPS })
            .catch(() => undefined)
        )?.spec?.egress?.[0]?.to?.[0]?.ipBlock?.except ?? [];
      await waitFor(async () => (await excepts()).includes('203.0.113.77/32'), {
        description: 'the node address excluded',
        ...LONG,
      });
      await api.delete(`/v1/apps/${APP}-web`).expect(202);
    } finally {
      await core.deleteNode({ name: 'joining-node' });
    }
  }, 90_000);

  it('becomes ready once: its URL answers from the host and instance-ready is queued once', async () => {
    await inState(first, 'ready');
    await readyOtherThan([]);
    await manager.manager.fullPass();
    await manager.manager.fullPass();
    expect(await eventIds('instance-ready')).toEqual([first]);
  }, 90_000);

  it('session-reserved takes it and starts a replacement pod that becomes ready', async () => {
    await adapter.reserve(first, 's1');
    await inState(first, 'taken');
    second = (await readyOtherThan([first])).id;
    expect(await eventIds('instance-ready')).toEqual([first, second]);
  }, 90_000);

  it('release → instance-withdraw; runner-withdrawn → pod deleted → instance-gone once', async () => {
    const hostId = instanceIdForPod((await podOf(first))?.metadata?.uid ?? '');
    expect(await onHost(hostId)).toBe(true);
    await adapter.release(first, 's1');
    await waitFor(async () => (await eventIds('instance-withdraw')).includes(first), {
      description: 'instance-withdraw',
      ...LONG,
    });
    expect((await recordOf(first))?.state).toBe('withdrawing');
    await adapter.withdrawn(first);
    const gone = await inState(first, 'gone');
    expect(gone.outcome).toBe('completed');
    await waitFor(async () => (await podOf(first)) === undefined && !(await onHost(hostId)), {
      description: 'pod deleted and its sandbox removed',
      ...LONG,
    });
    await manager.manager.fullPass();
    expect(await eventIds('instance-gone')).toEqual([first]);
    expect(await eventIds('instance-withdraw')).toEqual([first]);
  }, 90_000);

  it('converges after the API server restarts: a take during the outage is replaced once it is back', async () => {
    await deployed.harness.stopApiServer();
    try {
      await adapter.reserve(second, 's2');
      await inState(second, 'taken');
      // The replacement's pod cannot be created now: its start fails and stays recorded for retry.
      await waitFor(async () => (await live()).some((record) => record.endOutcome === 'failed'), {
        description: 'a failed start while the API server is down',
        ...LONG,
      });
    } finally {
      await deployed.harness.startApiServer();
    }
    // Readiness is read from the informer cache only: a new pod ready means the watch recovered.
    third = (await readyOtherThan([first, second])).id;
    expect(driverLog.text()).toContain('informer failed; restarting');
    await waitFor(converged, { description: 'pods and live records to agree', ...LONG });
    expect((await live()).map((record) => `${record.id}:${record.state}`).sort()).toEqual(
      [`${second}:taken`, `${third}:ready`].sort(),
    );
  }, 90_000);

  it('relists a silent watch: a pod deleted behind a frozen watch is noticed and replaced', async () => {
    const pod = await podOf(third);
    const before = relists();
    proxy.freezeOpenConnections();
    await core.deleteNamespacedPod({ name: pod?.metadata?.name ?? '', namespace: APPS });
    // Well inside client-node's 30 s inactivity timeout: only the watchdog's relist can see it.
    const ended = await inState(third, 'gone', 20_000);
    expect(ended.outcome).toBe('failed');
    expect(relists()).toBeGreaterThan(before);
    await readyOtherThan([first, second, third]);
    await waitFor(converged, { description: 'pods and live records to agree', ...LONG });
  }, 90_000);

  it('deleting the app removes every pod and the NetworkPolicy', async () => {
    await api.delete(`/v1/apps/${APP}`).expect(202);
    await adapter.release(second, 's2');
    await waitFor(
      async () => {
        for (const id of await eventIds('instance-withdraw')) await adapter.withdrawn(id);
        return (await live()).length === 0 && (await pods()).length === 0;
      },
      { description: 'every instance gone and every pod deleted', ...LONG, intervalMs: 500 },
    );
    const networking = deployed.admin.makeApiClient(NetworkingV1Api);
    // Ours only: deploy/ keeps its namespace-wide default-deny policy there.
    const noPolicy = async () =>
      (await networking.listNamespacedNetworkPolicy({ namespace: APPS, labelSelector: MANAGED_POD_SELECTOR }))
        .items.length === 0;
    await waitFor(noPolicy, { description: 'the app NetworkPolicy deleted', ...LONG });
    const gone = await eventIds('instance-gone');
    expect(new Set(gone).size).toBe(gone.length);
  }, 90_000);
});
