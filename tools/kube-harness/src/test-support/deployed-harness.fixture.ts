import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { waitFor } from '@sandbox/testing';
import { startKubeHarness, type KubeHarness } from '../control-plane/kube-harness';
import { applyDeploy } from '../manifests/manifests';

/** Names `deploy/` gives the objects the tests check. */
export const DEPLOY = {
  systemNamespace: 'sandbox-system',
  appsNamespace: 'sandbox-apps',
  runtimeClass: 'gvisor',
  orchestratorDeployment: 'livepeer-node',
  adapterSecret: 'adapter-bootstrap',
  serviceAccounts: ['instance-manager', 'adapter', 'drain-controller', 'redemption-handoff', 'dashboard'],
} as const;

/** A harness with `deploy/` applied. */
export interface DeployedHarness {
  harness: KubeHarness;
  admin: KubeConfig;
  objects: KubernetesObject[];
}

/** Starts a harness (building the binaries on first use) and applies `deploy/` to it. */
export async function startDeployedHarness(): Promise<DeployedHarness> {
  const harness = await startKubeHarness();
  try {
    const admin = await harness.adminConfig();
    const objects = await applyDeploy(admin, harness.binaries.kustomize);
    await policyInForce(admin);
    return { harness, admin, objects };
  } catch (error) {
    await harness.stop();
    throw error;
  }
}

/**
 * The API server loads admission policies asynchronously (about a second after they are written):
 * waits until a dry-run of a pod breaking the policy is refused by it.
 */
export async function policyInForce(admin: KubeConfig): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  // Pod Security (restricted) admits it, so the refusal can only come from the policy (no runtime class).
  const probe = {
    metadata: { name: 'policy-probe' },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'probe',
          image: 'probe',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        },
      ],
    },
  };
  await waitFor(
    async () => {
      try {
        await core.createNamespacedPod({ namespace: DEPLOY.appsNamespace, body: probe, dryRun: 'All' });
        return false;
      } catch (error) {
        return String((error as { body?: unknown }).body).includes(
          "ValidatingAdmissionPolicy 'sandbox-apps-pods'",
        );
      }
    },
    { description: 'the apps admission policy to be in force', timeoutMs: 30_000, intervalMs: 200 },
  );
}
