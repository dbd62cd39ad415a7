import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  NetworkingV1Api,
  NodeV1Api,
  type V1Pod,
} from '@kubernetes/client-node';
import { waitFor } from '@sandbox/testing';
import { buildAppNetworkPolicy } from '@sandbox/kube';
import { serviceAccountKubeConfig } from '../control-plane/service-accounts';
import { testNamespaces, type TestNamespaces } from '../control-plane/test-namespaces';
import { app, ourPod, shaped, type PodWithSpec } from '../test-support/admission.fixture';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';

const APPS = DEPLOY.appsNamespace;
const POLICY = "ValidatingAdmissionPolicy 'sandbox-apps-pods'";

let deployed: DeployedHarness;
let core: CoreV1Api;
let namespaces: TestNamespaces;
/**
 * A namespace bound to the same policy but without Pod Security labels: the policy alone decides there,
 * so each of its rules is seen refusing on its own (in sandbox-apps Pod Security often refuses first).
 */
let policyOnly = '';
const POLICY_ONLY_LABEL = { 'sandbox-test/apps-pod-policy': 'bound' };

/** The pod moved to another namespace. */
function inNamespace(pod: V1Pod, namespace: string): V1Pod {
  return { ...pod, metadata: { ...pod.metadata, namespace } };
}

/** Binds the deployed policy to the policy-only namespace and waits until it refuses there. */
async function bindPolicyOnly(): Promise<void> {
  policyOnly = await namespaces.create('policy-only', POLICY_ONLY_LABEL);
  await deployed.admin.makeApiClient(AdmissionregistrationV1Api).createValidatingAdmissionPolicyBinding({
    body: {
      metadata: { name: 'sandbox-apps-pods-policy-only' },
      spec: {
        policyName: 'sandbox-apps-pods',
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: POLICY_ONLY_LABEL } },
      },
    },
  });
  const unlabelled = shaped((p) => delete p.spec.runtimeClassName);
  await waitFor(
    async () => (await rejection(unlabelled, policyOnly).catch(() => '')).includes('runtimeClassName'),
    { description: 'the policy-only binding in force', timeoutMs: 20_000 },
  );
}

function managerConfig() {
  return serviceAccountKubeConfig(deployed.admin, DEPLOY.systemNamespace, 'instance-manager');
}

/** The 403 body refusing the pod in the namespace (the policy-only one unless told). */
async function rejection(pod: V1Pod, namespace = policyOnly): Promise<string> {
  try {
    await core.createNamespacedPod({ namespace, body: inNamespace(pod, namespace) });
  } catch (error) {
    const { code, body } = error as { code?: number; body?: unknown };
    if (code === 403 && typeof body === 'string') return body;
    throw error;
  }
  throw new Error('the pod was admitted');
}

const secretRef = { name: 'anything', key: 'key' };
const security = (p: PodWithSpec) => app(p).securityContext ?? {};

/** Pod shapes instance-manager never builds, each with the policy's message refusing it. */
const BAD_SHAPES: [string, (pod: PodWithSpec) => void, string][] = [
  [
    'an nfs volume',
    (p) => p.spec.volumes?.push({ name: 'data', nfs: { server: '192.0.2.10', path: '/export' } }),
    'may only have in-memory emptyDir volumes',
  ],
  [
    'an iscsi volume',
    (p) =>
      p.spec.volumes?.push({
        name: 'data',
        iscsi: { targetPortal: '192.0.2.10:3260', iqn: 'iqn.2001-04.com.example:disk', lun: 0 },
      }),
    'may only have in-memory emptyDir volumes',
  ],
  [
    'a generic ephemeral volume',
    (p) =>
      p.spec.volumes?.push({
        name: 'data',
        ephemeral: {
          volumeClaimTemplate: {
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        },
      }),
    'may only have in-memory emptyDir volumes',
  ],
  [
    'a disk-backed emptyDir',
    (p) => p.spec.volumes?.push({ name: 'scratch', emptyDir: {} }),
    'may only have in-memory emptyDir volumes',
  ],
  [
    'an environment value from a Secret (secretKeyRef)',
    (p) => app(p).env?.push({ name: 'TOKEN', valueFrom: { secretKeyRef: secretRef } }),
    'may only have plain environment values',
  ],
  [
    'environment from a Secret (envFrom)',
    (p) => (app(p).envFrom = [{ secretRef: { name: 'anything' } }]),
    'may only have plain environment values',
  ],
  [
    'runAsUser 0',
    (p) => (app(p).securityContext = { ...security(p), runAsUser: 0 }),
    'must run as a non-root user',
  ],
  [
    'a pod-level runAsUser 0',
    (p) => (p.spec.securityContext = { ...p.spec.securityContext, runAsUser: 0 }),
    'must run as a non-root user',
  ],
  [
    'seccomp Unconfined',
    (p) => (p.spec.securityContext = { ...p.spec.securityContext, seccompProfile: { type: 'Unconfined' } }),
    'must use the RuntimeDefault seccomp profile',
  ],
  [
    'allowPrivilegeEscalation',
    (p) => (app(p).securityContext = { ...security(p), allowPrivilegeEscalation: true }),
    'must forbid privilege escalation',
  ],
  [
    'a writable root filesystem',
    (p) => (app(p).securityContext = { ...security(p), readOnlyRootFilesystem: false }),
    'must forbid privilege escalation, have a read-only root filesystem',
  ],
  [
    'a pod without our labels',
    (p) => (p.metadata = { ...p.metadata, labels: {} }),
    'must carry the labels instance-manager sets',
  ],
];

describeWithKube('deploy/ admission policy for the apps namespace', () => {
  beforeAll(async () => {
    deployed = await startDeployedHarness();
    core = deployed.admin.makeApiClient(CoreV1Api);
    namespaces = testNamespaces(deployed.admin);
    // Another class that exists, so the RuntimeClass plugin lets such a pod through to our policy.
    await deployed.admin
      .makeApiClient(NodeV1Api)
      .createRuntimeClass({ body: { metadata: { name: 'runc' }, handler: 'runc' } });
    await bindPolicyOnly();
  }, HARNESS_START_TIMEOUT_MS);

  afterAll(async () => {
    await namespaces?.cleanup();
    await deployed?.harness.stop();
  }, 60_000);

  it('admits our own pods, created with the instance-manager token', async () => {
    const managerCore = (await managerConfig()).makeApiClient(CoreV1Api);
    for (const pod of [ourPod('none'), ourPod('internet')]) {
      const created = await managerCore.createNamespacedPod({ namespace: APPS, body: pod });
      expect(created.spec?.runtimeClassName).toBe(DEPLOY.runtimeClass);
      expect(created.spec?.volumes?.map((volume) => volume.name)).toEqual(['tmp']);
    }
  });

  it.each(['none', 'internet'] as const)(
    'accepts our NetworkPolicy for egress %s, created with the instance-manager token',
    async (egress) => {
      const policy = buildAppNetworkPolicy({
        namespace: APPS,
        app: `demo-${egress}`,
        port: 8080,
        egress,
        orchestrator: {
          namespaceLabels: { 'kubernetes.io/metadata.name': DEPLOY.systemNamespace },
          podLabels: { 'app.kubernetes.io/name': 'livepeer-node' },
        },
        clusterCidrs: ['10.42.0.0/16', '10.43.0.0/16'],
      });
      const networking = (await managerConfig()).makeApiClient(NetworkingV1Api);
      const created = await networking.createNamespacedNetworkPolicy({ namespace: APPS, body: policy });
      expect(created.metadata?.name).toBe(policy.metadata?.name);
    },
  );

  it('rejects a pod without a runtime class', async () => {
    const pod = shaped((p) => delete p.spec.runtimeClassName);
    expect(await rejection(pod, APPS)).toContain(
      `${POLICY} with binding 'sandbox-apps-pods' denied request: app pods must set runtimeClassName gvisor`,
    );
  });

  it('rejects a pod with another runtime class', async () => {
    expect(await rejection(shaped((p) => (p.spec.runtimeClassName = 'runc')))).toContain(
      'must set runtimeClassName gvisor',
    );
  });

  it('rejects a pod that would get a service-account token (automount left unset)', async () => {
    const pod = shaped((p) => delete p.spec.automountServiceAccountToken);
    expect(await rejection(pod)).toContain('must not mount a service-account token');
  });

  it('rejects a pod that mounts a token through a projected volume', async () => {
    const pod = shaped((p) => {
      p.spec.volumes?.push({
        name: 'token',
        projected: { sources: [{ serviceAccountToken: { path: 'token' } }] },
      });
    });
    expect(await rejection(pod)).toContain('must not mount a service-account token');
  });

  it('rejects a pod with a Secret volume', async () => {
    const pod = shaped((p) => p.spec.volumes?.push({ name: 'creds', secret: { secretName: 'anything' } }));
    expect(await rejection(pod)).toContain('must not mount Secrets');
  });

  it('rejects a pod with a Secret in a projected volume', async () => {
    const pod = shaped((p) =>
      p.spec.volumes?.push({ name: 'creds', projected: { sources: [{ secret: { name: 'anything' } }] } }),
    );
    expect(await rejection(pod)).toContain('must not mount Secrets');
  });

  it('rejects host networking', async () => {
    expect(await rejection(shaped((p) => (p.spec.hostNetwork = true)))).toContain(
      'must not use the host network',
    );
  });

  it('rejects the host PID namespace', async () => {
    expect(await rejection(shaped((p) => (p.spec.hostPID = true)))).toContain(
      'must not use the host PID namespace',
    );
  });

  it('rejects the host IPC namespace', async () => {
    expect(await rejection(shaped((p) => (p.spec.hostIPC = true)))).toContain(
      'must not use the host IPC namespace',
    );
  });

  it('rejects a hostPath volume', async () => {
    const pod = shaped((p) => p.spec.volumes?.push({ name: 'root', hostPath: { path: '/' } }));
    expect(await rejection(pod)).toContain('must not mount hostPath volumes');
  });

  it('rejects a host port', async () => {
    const pod = shaped((p) => (app(p).ports = [{ containerPort: 8080, hostPort: 8080 }]));
    expect(await rejection(pod)).toContain('must not use host ports');
  });

  it('rejects a privileged container', async () => {
    const pod = shaped((p) => {
      app(p).securityContext = {
        ...app(p).securityContext,
        privileged: true,
        allowPrivilegeEscalation: true,
      };
    });
    expect(await rejection(pod)).toContain('must not run privileged containers');
  });

  it('rejects added capabilities', async () => {
    const pod = shaped(
      (p) => (app(p).securityContext = { ...app(p).securityContext, capabilities: { add: ['NET_ADMIN'] } }),
    );
    expect(await rejection(pod)).toContain('must not add capabilities');
  });

  it('rejects a container without limits', async () => {
    const pod = shaped((p) => (app(p).resources = { requests: { cpu: '100m', memory: '64Mi' } }));
    expect(await rejection(pod)).toContain('every app container must have cpu and memory limits');
  });

  it('rejects an init container that breaks the rules', async () => {
    const pod = shaped(
      (p) =>
        (p.spec.initContainers = [
          { name: 'setup', image: app(p).image, securityContext: { privileged: true } },
        ]),
    );
    const body = await rejection(pod);
    expect(body).toContain('must not run privileged containers');
  });

  it('rejects a privileged ephemeral (debug) container added to a running pod', async () => {
    const pod = await core.createNamespacedPod({
      namespace: policyOnly,
      body: inNamespace(ourPod(), policyOnly),
    });
    const name = pod.metadata?.name ?? '';
    const debug = { name: 'debug', image: 'busybox', securityContext: { privileged: true } };
    const update = core.replaceNamespacedPodEphemeralcontainers({
      name,
      namespace: policyOnly,
      body: {
        ...pod,
        spec: { ...pod.spec, containers: pod.spec?.containers ?? [], ephemeralContainers: [debug] },
      },
    });
    await expect(update).rejects.toMatchObject({
      code: 403,
      body: expect.stringContaining('must not run privileged containers'),
    });
  });

  it.each(BAD_SHAPES)(
    'refuses %s by the policy alone, and in the apps namespace',
    async (_shape, change, message) => {
      expect(await rejection(shaped(change))).toContain(message);
      // In sandbox-apps Pod Security (restricted) may refuse first; either way it is refused.
      expect(await rejection(shaped(change), APPS)).toMatch(
        /violates PodSecurity \\"restricted|denied request/,
      );
    },
  );

  it('enforces Pod Security restricted in the apps namespace by itself', async () => {
    const labels = (await core.readNamespace({ name: APPS })).metadata?.labels ?? {};
    expect(labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const rootUser = shaped((p) => (p.spec.securityContext = { ...p.spec.securityContext, runAsUser: 0 }));
    // The body is the JSON Status, its message's quotes escaped.
    expect(await rejection(rootUser, APPS)).toContain('violates PodSecurity \\"restricted:latest\\"');
  });

  it('applies to the apps namespace only', async () => {
    const elsewhere = await namespaces.create('not-apps');
    const pod = shaped((p) => {
      p.metadata = { ...p.metadata, namespace: elsewhere };
      p.spec.hostNetwork = true;
    });
    expect((await core.createNamespacedPod({ namespace: elsewhere, body: pod })).spec?.hostNetwork).toBe(
      true,
    );
  });
});
