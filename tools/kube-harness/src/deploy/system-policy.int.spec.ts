import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  NetworkingV1Api,
  type V1Deployment,
  type V1PodSpec,
} from '@kubernetes/client-node';
import { waitFor } from '@sandbox/testing';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureKubeBinaries } from '../build/ensure-kube-binaries';
import { DEPLOY_DIR, renderKustomization } from '../manifests/manifests';
import { OVERLAYS, overlayDir, workloads } from '../manifests/workloads';
import { requireKubectl } from '../test-support/kubectl.fixture';
import { serviceAccountKubeConfig } from '../control-plane/service-accounts';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';

const SYSTEM = DEPLOY.systemNamespace;
const NODE = DEPLOY.orchestratorDeployment;

let deployed: DeployedHarness;
let drain: AppsV1Api;

/** A JSON patch the drain controller sends, as it would to restart or (here) to abuse the orchestrator. */
const patchAs = (body: object[]) => drain.patchNamespacedDeployment({ name: NODE, namespace: SYSTEM, body });

/** The 403 body refusing the patch. */
async function refusal(body: object[]): Promise<string> {
  try {
    await patchAs(body);
  } catch (error) {
    const { code, body: text } = error as { code?: number; body?: unknown };
    if (code === 403 && typeof text === 'string') return text;
    throw error;
  }
  throw new Error('the patch was admitted');
}

const orchestrator = (): V1Deployment => {
  const labels = { 'app.kubernetes.io/name': NODE };
  return {
    metadata: { name: NODE },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'node', image: 'livepeer/go-livepeer' }] },
      },
    },
  };
};

const container = (field: string, value: unknown) => [
  { op: 'add', path: `/spec/template/spec/containers/0/${field}`, value },
];
const podSpec = (field: string, value: unknown) => [
  { op: 'add', path: `/spec/template/spec/${field}`, value },
];

/** Changes to the Node container that are neither its image nor allowed. */
function containerChanges(): [string, object[]][] {
  return [
    [
      'an exec liveness probe (the container mounts Secrets)',
      container('livenessProbe', { exec: { command: ['cat', '/run/secrets/x'] } }),
    ],
    [
      'an HTTP readiness probe aimed at a metadata address',
      container('readinessProbe', { httpGet: { host: '169.254.169.254', path: '/', port: 80 } }),
    ],
    ['a startup probe', container('startupProbe', { tcpSocket: { port: 8935 } })],
    [
      'a termination message path onto a mounted Secret',
      container('terminationMessagePath', '/run/secrets/token'),
    ],
    ['another termination message policy', container('terminationMessagePolicy', 'FallbackToLogsOnError')],
    ['a post-start hook', container('lifecycle', { postStart: { exec: { command: ['sh'] } } })],
    ['another pull policy', container('imagePullPolicy', 'Never')],
    ['another command', container('command', ['sh', '-c', 'id'])],
    ['another working directory', container('workingDir', '/run')],
    ['a terminal', container('tty', true)],
    ['an open stdin', container('stdin', true)],
    ['another port', container('ports', [{ containerPort: 9999 }])],
    ['another resource limit', container('resources', { limits: { memory: '1Gi' } })],
    ['a second container', podSpec('containers/-', { name: 'side', image: 'livepeer/go-livepeer' })],
  ];
}

/** Changes to the pod spec around the container. */
function podSpecChanges(): [string, object[]][] {
  return [
    ['a priority class', podSpec('priorityClassName', 'system-node-critical')],
    ['another scheduler', podSpec('schedulerName', 'elsewhere')],
    ['a node selector', podSpec('nodeSelector', { 'kubernetes.io/hostname': 'other' })],
    ['a toleration', podSpec('tolerations', [{ operator: 'Exists' }])],
    ['another DNS policy', podSpec('dnsPolicy', 'Default')],
    ['host aliases', podSpec('hostAliases', [{ ip: '10.0.0.1', hostnames: ['redis'] }])],
    ['another grace period', podSpec('terminationGracePeriodSeconds', 1)],
    ['service links', podSpec('enableServiceLinks', false)],
    ['a readiness gate', podSpec('readinessGates', [{ conditionType: 'example.com/gate' }])],
    [
      'a topology spread',
      podSpec('topologySpreadConstraints', [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
      ]),
    ],
    ['an init container', podSpec('initContainers', [{ name: 'init', image: 'livepeer/go-livepeer' }])],
  ];
}

/** Changes to the Deployment outside the pod spec. */
function deploymentChanges(): [string, object[]][] {
  return [
    ['a paused rollout', [{ op: 'add', path: '/spec/paused', value: true }]],
    [
      'another owner',
      [
        {
          op: 'add',
          path: '/metadata/ownerReferences',
          value: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '00000000-0000-0000-0000-000000000001' },
          ],
        },
      ],
    ],
    ['a label on the Deployment', [{ op: 'add', path: '/metadata/labels', value: { owner: 'someone' } }]],
    ['an annotation on the Deployment', [{ op: 'add', path: '/metadata/annotations', value: { a: 'b' } }]],
    ['a finalizer', [{ op: 'add', path: '/metadata/finalizers', value: ['example.com/hold'] }]],
    ['another strategy', [{ op: 'replace', path: '/spec/strategy', value: { type: 'Recreate' } }]],
    ['another minimum ready time', [{ op: 'add', path: '/spec/minReadySeconds', value: 30 }]],
    ['another progress deadline', [{ op: 'add', path: '/spec/progressDeadlineSeconds', value: 5 }]],
    ['another revision history', [{ op: 'add', path: '/spec/revisionHistoryLimit', value: 0 }]],
    [
      'a label on the pod template',
      [{ op: 'add', path: '/spec/template/metadata/labels/extra', value: 'x' }],
    ],
    [
      'another annotation on the pod template',
      [{ op: 'add', path: '/spec/template/metadata/annotations', value: { 'sandbox-runtime/other': 'x' } }],
    ],
  ];
}

describeWithKube('deploy/ policies for the system namespace and the apps default', () => {
  beforeAll(async () => {
    deployed = await startDeployedHarness();
    await deployed.admin
      .makeApiClient(AppsV1Api)
      .createNamespacedDeployment({ namespace: SYSTEM, body: orchestrator() });
    drain = (await serviceAccountKubeConfig(deployed.admin, SYSTEM, 'drain-controller')).makeApiClient(
      AppsV1Api,
    );
    // Policies load asynchronously: wait until a forbidden patch is refused by ours.
    await waitFor(
      async () =>
        (
          await refusal([
            { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'attacker/x' },
          ]).catch(() => '')
        ).includes('sandbox-system-drain-patch'),
      { description: 'the system policies in force', timeoutMs: 30_000, intervalMs: 200 },
    );
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await deployed?.harness.stop();
  }, 60_000);

  it("lets the drain controller restart the orchestrator through the pod template's restart annotations", async () => {
    const annotations = {
      'kubectl.kubernetes.io/restartedAt': '2026-12-05T00:00:00Z',
      'sandbox-runtime/drain-id': 'd1',
    };
    const restart = [{ op: 'add', path: '/spec/template/metadata/annotations', value: annotations }];
    const patched = await patchAs(restart);
    expect(patched.spec?.template.metadata?.annotations).toEqual(annotations);
    const again = [
      {
        op: 'replace',
        path: '/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt',
        value: '2026-12-05T01:00:00Z',
      },
    ];
    expect((await patchAs(again)).spec?.template.metadata?.annotations).toMatchObject({
      'kubectl.kubernetes.io/restartedAt': '2026-12-05T01:00:00Z',
    });
  });

  it('lets the drain controller upgrade the orchestrator to another tag of the same image', async () => {
    const upgrade = [
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'livepeer/go-livepeer:1.2.3' },
    ];
    const patched = await patchAs(upgrade);
    expect(patched.spec?.template.spec?.containers[0]?.image).toBe('livepeer/go-livepeer:1.2.3');
  });

  it.each([
    [
      'a privileged container',
      [{ op: 'add', path: '/spec/template/spec/containers/0/securityContext', value: { privileged: true } }],
    ],
    [
      'a host path',
      [
        {
          op: 'add',
          path: '/spec/template/spec/volumes',
          value: [{ name: 'root', hostPath: { path: '/' } }],
        },
      ],
    ],
    [
      'another Secret',
      [
        {
          op: 'add',
          path: '/spec/template/spec/volumes',
          value: [{ name: 'creds', secret: { secretName: 'adapter-bootstrap' } }],
        },
      ],
    ],
    [
      'an image of another repository',
      [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'attacker/image' }],
    ],
    [
      'another environment',
      [{ op: 'add', path: '/spec/template/spec/containers/0/env', value: [{ name: 'A', value: 'b' }] }],
    ],
    ['the host network', [{ op: 'add', path: '/spec/template/spec/hostNetwork', value: true }]],
    ['more replicas', [{ op: 'replace', path: '/spec/replicas', value: 3 }]],
    // Beyond the fields a deny-list would think of: every one of these was once admitted.
    ...containerChanges(),
    ...podSpecChanges(),
    ...deploymentChanges(),
  ])('refuses the drain controller a patch that adds %s', async (_what, patch) => {
    // Privileged pods, host paths and host namespaces are refused by both policies; the API server
    // reports whichever denial it evaluated first.
    expect(await refusal(patch)).toMatch(/the drain controller may|system pods must not/u);
  });

  it('compares every field of the Deployment the API server knows, but the image and the restart annotations', async () => {
    const kubectl = await requireKubectl(process.env);
    const { stdout } = await promisify(execFile)(
      kubectl,
      ['--kubeconfig', deployed.harness.kubeconfigPath, 'get', '--raw', '/openapi/v3/apis/apps/v1'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const schemas = (
      JSON.parse(stdout) as { components: { schemas: Record<string, { properties?: object }> } }
    ).components.schemas;
    const fieldsOf = (name: string) => Object.keys(schemas[name]?.properties ?? {}).sort();
    const policy = await readFile(join(DEPLOY_DIR, 'cluster', 'system-policy.yaml'), 'utf8');
    const compared = (pattern: RegExp) => [...policy.matchAll(pattern)].map((match) => match[1] ?? '');
    const missing = (schema: string, pattern: RegExp, allowed: readonly string[]) =>
      fieldsOf(schema).filter((field) => !compared(pattern).includes(field) && !allowed.includes(field));
    const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
    expect(fieldsOf('io.k8s.api.core.v1.PodSpec').length).toBeGreaterThan(40);
    // What the API server itself changes on every write, and the Deployment's immutable identity.
    const serverSet = [
      'creationTimestamp',
      'deletionGracePeriodSeconds',
      'deletionTimestamp',
      'generation',
      'managedFields',
      'resourceVersion',
      'selfLink',
      'uid',
    ];
    expect({
      deployment: missing(meta, /object\.metadata\.\?(\w+) == oldObject\.metadata\.\?\1/g, serverSet),
      deploymentSpec: missing(
        'io.k8s.api.apps.v1.DeploymentSpec',
        /object\.spec\.\?(\w+) == oldObject\.spec\.\?\1/g,
        ['template'],
      ),
      template: missing(
        meta,
        /object\.spec\.template\.metadata\.\?(\w+) == oldObject\.spec\.template\.metadata\.\?\1/g,
        ['annotations'],
      ),
      podSpec: missing('io.k8s.api.core.v1.PodSpec', /variables\.new\.\?(\w+) == variables\.old\.\?\1/g, [
        'containers',
      ]),
      container: missing('io.k8s.api.core.v1.Container', /c\.\?(\w+) == o\.\?\1/g, ['name', 'image']),
    }).toEqual({ deployment: [], deploymentSpec: [], template: [], podSpec: [], container: [] });
  });

  it('refuses an ephemeral container that adds a capability to a system pod', async () => {
    const core = deployed.admin.makeApiClient(CoreV1Api);
    const restricted = {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
      runAsUser: 65534,
      seccompProfile: { type: 'RuntimeDefault' },
    };
    const name = `debug-target-${Math.random().toString(36).slice(2, 8)}`;
    await core.createNamespacedPod({
      namespace: SYSTEM,
      body: {
        metadata: { name },
        spec: { containers: [{ name: 'main', image: 'main', securityContext: restricted }] },
      },
    });
    try {
      // Pod Security `restricted` admits NET_BIND_SERVICE; the system policy admits no capability at all.
      const debug = {
        name: 'debug',
        image: 'debug',
        securityContext: { ...restricted, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } },
      };
      await expect(
        core.patchNamespacedPodEphemeralcontainers({
          name,
          namespace: SYSTEM,
          body: [{ op: 'add', path: '/spec/ephemeralContainers', value: [debug] }],
        }),
      ).rejects.toMatchObject({
        code: 403,
        body: expect.stringContaining('system pods must not run privileged or add capabilities'),
      });
    } finally {
      await core.deleteNamespacedPod({ name, namespace: SYSTEM, gracePeriodSeconds: 0 });
    }
  });

  it.each(OVERLAYS)(
    '%s: every system pod passes Pod Security restricted, which sandbox-system enforces',
    async (overlay) => {
      const core = deployed.admin.makeApiClient(CoreV1Api);
      const namespace = await core.readNamespace({ name: SYSTEM });
      expect(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
      const { kustomize } = await ensureKubeBinaries();
      const system = workloads(await renderKustomization(kustomize, overlayDir(overlay))).filter(
        (workload) => workload.namespace === SYSTEM,
      );
      expect(system.length).toBeGreaterThan(5);
      const refused: string[] = [];
      for (const workload of system) {
        // A StatefulSet's pods get their claims as volumes.
        const claims = workload.claims.map((claim) => ({
          name: claim,
          persistentVolumeClaim: { claimName: claim },
        }));
        const template: V1PodSpec = workload.template.spec ?? { containers: [] };
        const spec: V1PodSpec = { ...template, volumes: [...(template.volumes ?? []), ...claims] };
        const body = { metadata: { name: `pss-${workload.name}` }, spec };
        await core
          .createNamespacedPod({ namespace: SYSTEM, body, dryRun: 'All' })
          .catch((error: { body?: unknown }) => refused.push(`${workload.name}: ${String(error.body)}`));
      }
      expect(refused).toEqual([]);
    },
  );

  it('denies all ingress and egress to every pod of the apps namespace that no app policy opens', async () => {
    const networking = deployed.admin.makeApiClient(NetworkingV1Api);
    const policy = await networking.readNamespacedNetworkPolicy({
      name: 'default-deny',
      namespace: DEPLOY.appsNamespace,
    });
    expect(policy.spec?.podSelector).toEqual({});
    expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec?.ingress ?? []).toEqual([]);
    expect(policy.spec?.egress ?? []).toEqual([]);
  });

  it('refuses privileged and host-path pods in the system namespace, whoever creates them, Pod Security or not', async () => {
    const core = deployed.admin.makeApiClient(CoreV1Api);
    const pod = (spec: V1PodSpec) => ({
      metadata: { name: `probe-${Math.random().toString(36).slice(2, 8)}` },
      spec,
    });
    const privileged: V1PodSpec = {
      containers: [{ name: 'p', image: 'p', securityContext: { privileged: true } }],
    };
    const hostPath: V1PodSpec = {
      containers: [{ name: 'p', image: 'p' }],
      volumes: [{ name: 'root', hostPath: { path: '/' } }],
    };
    for (const spec of [privileged, hostPath])
      await expect(core.createNamespacedPod({ namespace: SYSTEM, body: pod(spec) })).rejects.toMatchObject({
        code: 403,
        body: expect.stringContaining('violates PodSecurity \\"restricted:latest\\"'),
      });
    // Each layer stands alone: with Pod Security relaxed, the system policy still refuses both.
    const relax = (level: string) =>
      core.patchNamespace({
        name: SYSTEM,
        body: [{ op: 'replace', path: '/metadata/labels/pod-security.kubernetes.io~1enforce', value: level }],
      });
    await relax('privileged');
    try {
      const refusedBy = async (spec: V1PodSpec) =>
        core.createNamespacedPod({ namespace: SYSTEM, body: pod(spec) }).then(
          () => 'admitted',
          (error: { body?: unknown }) => String(error.body),
        );
      await waitFor(
        async () => (await refusedBy(privileged)).includes('system pods must not run privileged'),
        {
          description: 'the privileged pod refused by the system policy alone',
          timeoutMs: 10_000,
          intervalMs: 200,
        },
      );
      expect(await refusedBy(hostPath)).toContain('system pods must not mount host paths');
    } finally {
      await relax('restricted');
    }
  });
});
