import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  NetworkingV1Api,
  type V1Deployment,
  type V1PodSpec,
} from '@kubernetes/client-node';
import { waitFor } from '@sandbox/testing';
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

  it("lets the drain controller restart the orchestrator through the pod template's annotations", async () => {
    const restart = [
      {
        op: 'add',
        path: '/spec/template/metadata/annotations',
        value: { 'sandbox-runtime/restarted-at': 'now' },
      },
    ];
    const patched = await patchAs(restart);
    expect(patched.spec?.template.metadata?.annotations).toEqual({ 'sandbox-runtime/restarted-at': 'now' });
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
  ])('refuses the drain controller a patch that adds %s', async (_what, patch) => {
    // Privileged pods, host paths and host namespaces are refused by both policies; the API server
    // reports whichever denial it evaluated first.
    expect(await refusal(patch)).toMatch(
      /the drain controller may only change the pod template|system pods must not/u,
    );
  });

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

  it('refuses privileged and host-path pods in the system namespace, whoever creates them', async () => {
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
    await expect(
      core.createNamespacedPod({ namespace: SYSTEM, body: pod(privileged) }),
    ).rejects.toMatchObject({
      code: 403,
      body: expect.stringContaining('system pods must not run privileged'),
    });
    await expect(core.createNamespacedPod({ namespace: SYSTEM, body: pod(hostPath) })).rejects.toMatchObject({
      code: 403,
      body: expect.stringContaining('system pods must not mount host paths'),
    });
  });
});
