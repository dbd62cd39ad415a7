import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ApiException,
  AuthenticationV1Api,
  CoreV1Api,
  RbacAuthorizationV1Api,
  VersionApi,
  type KubeConfig,
} from '@kubernetes/client-node';
import { parentEnv, startTsProcess, waitFor } from '@sandbox/testing';
import { ADMIN_USER } from '../pki/pki';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { startKubeHarness, type KubeHarness } from './kube-harness';
import { impersonating } from './kubeconfig';
import { serviceAccountKubeConfig, serviceAccountUser } from './service-accounts';
import { testNamespaces, type TestNamespaces } from './test-namespaces';
const FIXTURE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'test-support',
  'orphan-harness.fixture.ts',
);

let harness: KubeHarness;
let admin: KubeConfig;
let namespaces: TestNamespaces;

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const alive = (pid: number | undefined) => pid !== undefined && exists(`/proc/${pid}`);

async function whoAmI(kc: KubeConfig): Promise<{ username?: string; groups?: string[] }> {
  const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
  return review.status?.userInfo ?? {};
}

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

describeWithKube('kube harness: a real etcd and kube-apiserver on loopback', () => {
  beforeAll(async () => {
    harness = await startKubeHarness();
    admin = await harness.adminConfig();
    namespaces = testNamespaces(admin);
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await namespaces?.cleanup();
    await harness?.stop();
  }, 60_000);

  it('serves the pinned Kubernetes release on 127.0.0.1', async () => {
    const version = await admin.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe(harness.binaries.versions.kubernetes);
    expect(harness.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('authenticates the admin by client certificate as a member of system:masters', async () => {
    expect(await whoAmI(admin)).toMatchObject({
      username: ADMIN_USER,
      groups: expect.arrayContaining(['system:masters']),
    });
  });

  it('signs service-account tokens, and authorizes them with RBAC only', async () => {
    const namespace = await namespaces.create('tokens');
    const account = await serviceAccountKubeConfig(admin, namespace, 'default');
    expect((await whoAmI(account)).username).toBe(serviceAccountUser(namespace, 'default'));
    const core = account.makeApiClient(CoreV1Api);
    expect(await statusOf(core.listNamespacedConfigMap({ namespace }))).toBe(403);
    // A Role of our own: the aggregated ClusterRoles (view, edit, admin) stay empty here, since
    // their rules are filled in by kube-controller-manager, which the harness does not run.
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'read-config' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'read-config' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-config' },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace }],
      },
    });
    await waitFor(async () => (await statusOf(core.listNamespacedConfigMap({ namespace }))) === 200, {
      description: 'the new RoleBinding to take effect',
      timeoutMs: 10_000,
    });
    expect(await statusOf(core.listNamespacedSecret({ namespace }))).toBe(403);
  });

  it('impersonates a service account, with its groups, the way kubectl --as does', async () => {
    const namespace = await namespaces.create('impersonate');
    const user = serviceAccountUser(namespace, 'default');
    expect(await whoAmI(impersonating(admin, user))).toMatchObject({
      username: user,
      groups: expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${namespace}`]),
    });
  });

  it('runs the ServiceAccount and RuntimeClass admission plugins', async () => {
    const namespace = await namespaces.create('admission');
    const core = admin.makeApiClient(CoreV1Api);
    const container = { name: 'app', image: 'example' };
    const created = await core.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'plain' }, spec: { containers: [container] } },
    });
    const tokenVolume = created.spec?.volumes?.find((volume) =>
      volume.projected?.sources?.some((s) => s.serviceAccountToken),
    );
    expect(tokenVolume).toBeDefined();
    const unknownClass = core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'classless' },
        spec: { runtimeClassName: 'missing', containers: [container] },
      },
    });
    await expect(unknownClass).rejects.toMatchObject({
      code: 403,
      body: expect.stringContaining('RuntimeClass'),
    });
  });

  it('gives each test its own namespace with the default service account', async () => {
    const [first, second] = [await namespaces.create('same'), await namespaces.create('same')];
    expect(first).not.toBe(second);
    const account = await admin
      .makeApiClient(CoreV1Api)
      .readNamespacedServiceAccount({ name: 'default', namespace: second });
    expect(account.metadata?.namespace).toBe(second);
  });

  it('keeps its data across an API server restart, and refuses connections while it is down', async () => {
    const namespace = await namespaces.create('restart');
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'kept' }, data: { a: '1' } },
    });
    const before = harness.pids().apiserver;
    await harness.stopApiServer();
    expect(await alive(before)).toBe(false);
    await expect(core.readNamespacedConfigMap({ name: 'kept', namespace })).rejects.toThrow(
      /ECONNREFUSED|fetch failed/,
    );
    await harness.startApiServer();
    expect((await core.readNamespacedConfigMap({ name: 'kept', namespace })).data).toEqual({ a: '1' });
  }, 120_000);

  it('stops both servers and removes its directory', async () => {
    const other = await startKubeHarness({ binaries: harness.binaries });
    const pids = other.pids();
    expect(await alive(pids.etcd)).toBe(true);
    expect(await alive(pids.apiserver)).toBe(true);
    await other.stop();
    expect(await alive(pids.etcd)).toBe(false);
    expect(await alive(pids.apiserver)).toBe(false);
    expect(await exists(other.dir)).toBe(false);
  }, 120_000);

  it('leaves nothing behind when the test process dies without stopping it', async () => {
    const child = startTsProcess(FIXTURE, [], { env: parentEnv() });
    const line = await child.waitForLine((text) => text.startsWith('{'), HARNESS_START_TIMEOUT_MS);
    const orphan = JSON.parse(line) as { etcd: number; apiserver: number; dir: string };
    expect(await alive(orphan.apiserver)).toBe(true);
    // The owner alone, as a crash of the test process would: its watchdogs must do the rest.
    child.signal('SIGKILL');
    await waitFor(
      async () =>
        !(await alive(orphan.apiserver)) && !(await alive(orphan.etcd)) && !(await exists(orphan.dir)),
      {
        description: 'the watchdogs to kill kube-apiserver and etcd and remove the directory',
        timeoutMs: 20_000,
        intervalMs: 100,
      },
    );
  }, 120_000);
});
