import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  loadAllYaml,
  type KubeConfig,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '@sandbox/testing';
import { startKubeHarness, type KubeHarness } from '../control-plane/kube-harness';
import { canI } from '../control-plane/service-accounts';
import { ensureDefaultServiceAccount } from '../control-plane/test-namespaces';
import { applyObjects, DEPLOY_DIR, renderKustomization } from '../manifests/manifests';
import {
  mountedSecrets,
  OVERLAYS,
  overlayDir,
  workloads,
  type Overlay,
  type Workload,
} from '../manifests/workloads';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { policyInForce } from '../test-support/deployed-harness.fixture';

const SYSTEM = 'sandbox-system';
const APPS = 'sandbox-apps';

const str = { type: 'string' };
const strings = { type: 'object', additionalProperties: str };
/** A rule as the Prometheus operator's CRD declares it (`expr` is int-or-string there). */
const RULE = {
  type: 'object',
  required: ['expr'],
  properties: {
    alert: str,
    record: str,
    expr: { 'x-kubernetes-int-or-string': true },
    for: str,
    labels: strings,
    annotations: strings,
  },
};

/**
 * The PrometheusRule kind with the schema of the operator's CRD for the fields we use, so the API
 * server validates our rules' shape (the operator itself is not run here).
 */
const PROMETHEUS_RULE_CRD = {
  metadata: { name: 'prometheusrules.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: { plural: 'prometheusrules', singular: 'prometheusrule', kind: 'PrometheusRule' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  groups: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: str, interval: str, rules: { type: 'array', items: RULE } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

async function registerPrometheusRule(admin: KubeConfig): Promise<void> {
  const api = admin.makeApiClient(ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body: PROMETHEUS_RULE_CRD });
  await waitFor(
    async () => {
      const crd = await api.readCustomResourceDefinition({ name: PROMETHEUS_RULE_CRD.metadata.name });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    },
    { description: 'the PrometheusRule kind to be served', timeoutMs: 30_000, intervalMs: 100 },
  );
}

/** A pod as the workload's controller creates it: its template, plus a StatefulSet's claim volumes. */
function podOf(workload: Workload): V1Pod {
  const claimVolumes = workload.claims.map((claim) => ({
    name: claim,
    persistentVolumeClaim: { claimName: `${claim}-${workload.name}-0` },
  }));
  const spec = workload.template.spec;
  return {
    metadata: { generateName: `${workload.name}-`, labels: workload.template.metadata?.labels },
    spec: { ...spec, volumes: [...(spec?.volumes ?? []), ...claimVolumes] },
  } as V1Pod;
}

/** Every Secret any workload mounts, and every Deployment: the objects the RBAC matrix asks about. */
function matrixTargets(objects: KubernetesObject[]) {
  const secrets = [...new Set(workloads(objects).flatMap((w) => mountedSecrets(w.template)))];
  const deployments = workloads(objects)
    .filter((w) => w.kind === 'Deployment')
    .map((w) => w.name);
  return { secrets, deployments };
}

describeWithKube.each(OVERLAYS)('deploy/%s applied to the real kube-apiserver', (overlay: Overlay) => {
  let harness: KubeHarness;
  let admin: KubeConfig;
  let objects: KubernetesObject[];

  beforeAll(async () => {
    harness = await startKubeHarness();
    admin = await harness.adminConfig();
    objects = await renderKustomization(harness.binaries.kustomize, overlayDir(overlay));
    // The operator's form of the alert rules (monitoring/, opt-in), checked against its CRD's schema.
    if (overlay === 'production')
      objects.push(
        ...(loadAllYaml(
          await readFile(join(DEPLOY_DIR, 'monitoring', 'prometheus-rule.yaml'), 'utf8'),
        ) as KubernetesObject[]),
      );
    if (objects.some((object) => object.kind === 'PrometheusRule')) await registerPrometheusRule(admin);
    await applyObjects(admin, objects);
    for (const namespace of [SYSTEM, APPS]) await ensureDefaultServiceAccount(admin, namespace);
    await policyInForce(admin);
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await harness?.stop();
  }, 60_000);

  it('stores every object, and a second server-side apply changes none of their contents', async () => {
    const client = KubernetesObjectApi.makeApiClient(admin);
    const versions = async () => {
      const found: string[] = [];
      for (const object of objects) {
        // Everything but metadata and status (which the server and its admission plugins own).
        const {
          metadata,
          status: _status,
          ...content
        } = (await client.read(object as never)) as {
          metadata?: { name?: string; labels?: unknown };
          status?: unknown;
        };
        found.push(
          `${object.kind}/${metadata?.name} ${JSON.stringify({ labels: metadata?.labels, content })}`,
        );
      }
      return found;
    };
    const before = await versions();
    expect(before).toHaveLength(objects.length);
    await applyObjects(admin, objects);
    expect(await versions()).toEqual(before);
  });

  it('admits a pod of every workload it ships, with a token only where the API is used', async () => {
    const core = admin.makeApiClient(CoreV1Api);
    for (const workload of workloads(objects)) {
      const pod = await core.createNamespacedPod({ namespace: workload.namespace, body: podOf(workload) });
      const token = pod.spec?.volumes?.some((volume) =>
        volume.projected?.sources?.some((s) => s.serviceAccountToken),
      );
      const usesApi = ['instance-manager', 'adapter', 'drain-controller'].includes(workload.name);
      expect({ workload: workload.name, token: token === true }).toEqual({
        workload: workload.name,
        token: usesApi,
      });
      await core.deleteNamespacedPod({ namespace: workload.namespace, name: pod.metadata?.name ?? '' });
    }
  });

  it('still refuses an app pod outside gVisor in sandbox-apps', async () => {
    const core = admin.makeApiClient(CoreV1Api);
    const bad = { metadata: { name: 'escape' }, spec: { containers: [{ name: 'a', image: 'a' }] } };
    await expect(core.createNamespacedPod({ namespace: APPS, body: bad })).rejects.toMatchObject({
      code: 403,
    });
  });

  it('lets only the adapter read a Secret (its bootstrap one) and only the drain controller patch Node', async () => {
    const { secrets, deployments } = matrixTargets(objects);
    expect(deployments).toContain('livepeer-node');
    const accounts = objects.filter((o) => o.kind === 'ServiceAccount' && o.metadata?.namespace === SYSTEM);
    const wrong: string[] = [];
    for (const account of accounts.map((o) => o.metadata?.name ?? '')) {
      const who = { namespace: SYSTEM, name: account };
      for (const name of secrets) {
        const allowed = await canI(admin, who, { verb: 'get', resource: 'secrets', namespace: SYSTEM, name });
        if (allowed !== (account === 'adapter' && name === 'adapter-bootstrap'))
          wrong.push(`${account} get secret ${name}`);
      }
      for (const name of deployments) {
        for (const verb of ['get', 'patch']) {
          const question = { verb, resource: 'deployments', group: 'apps', namespace: SYSTEM, name };
          const expected = account === 'drain-controller' && name === 'livepeer-node';
          if ((await canI(admin, who, question)) !== expected)
            wrong.push(`${account} ${verb} deployment ${name}`);
        }
      }
      const creates = await canI(admin, who, { verb: 'create', resource: 'pods', namespace: APPS });
      if (creates !== (account === 'instance-manager')) wrong.push(`${account} create pods in ${APPS}`);
      const systemPods = await canI(admin, who, { verb: 'create', resource: 'pods', namespace: SYSTEM });
      if (systemPods) wrong.push(`${account} create pods in ${SYSTEM}`);
    }
    expect(wrong).toEqual([]);
  });
});
