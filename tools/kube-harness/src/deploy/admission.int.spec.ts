import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { CoreV1Api, NetworkingV1Api, NodeV1Api, type V1Pod } from '@kubernetes/client-node';
import { buildAppNetworkPolicy } from '@sandbox/kube';
import { serviceAccountKubeConfig } from '../control-plane/service-accounts';
import { testNamespaces, type TestNamespaces } from '../control-plane/test-namespaces';
import { app, ourPod, shaped } from '../test-support/admission.fixture';
import { describeWithKube, HARNESS_START_TIMEOUT_MS } from '../test-support/describe-with-kube.fixture';
import { DEPLOY, startDeployedHarness, type DeployedHarness } from '../test-support/deployed-harness.fixture';

const APPS = DEPLOY.appsNamespace;
const POLICY = "ValidatingAdmissionPolicy 'sandbox-apps-pods'";

let deployed: DeployedHarness;
let core: CoreV1Api;
let namespaces: TestNamespaces;

function managerConfig() {
  return serviceAccountKubeConfig(deployed.admin, DEPLOY.systemNamespace, 'instance-manager');
}

async function rejection(pod: V1Pod, namespace = APPS): Promise<string> {
  try {
    await core.createNamespacedPod({ namespace, body: pod });
  } catch (error) {
    const { code, body } = error as { code?: number; body?: unknown };
    if (code === 403 && typeof body === 'string') return body;
    throw error;
  }
  throw new Error('the pod was admitted');
}

describeWithKube('deploy/ admission policy for the apps namespace', () => {
  beforeAll(async () => {
    deployed = await startDeployedHarness();
    core = deployed.admin.makeApiClient(CoreV1Api);
    namespaces = testNamespaces(deployed.admin);
    // Another class that exists, so the RuntimeClass plugin lets such a pod through to our policy.
    await deployed.admin
      .makeApiClient(NodeV1Api)
      .createRuntimeClass({ body: { metadata: { name: 'runc' }, handler: 'runc' } });
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
    expect(await rejection(pod)).toContain(
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
    const pod = await core.createNamespacedPod({ namespace: APPS, body: ourPod() });
    const name = pod.metadata?.name ?? '';
    const debug = { name: 'debug', image: 'busybox', securityContext: { privileged: true } };
    const update = core.replaceNamespacedPodEphemeralcontainers({
      name,
      namespace: APPS,
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
