import { PatchStrategy, setHeaderOptions, type AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { NodeReadiness, OrchestratorDriver, ReplaceRequest } from './orchestrator-driver';
import { ReplacementError } from './orchestrator-driver';

/** The annotation `kubectl rollout restart` sets on the pod template; a new value rolls the pods. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
/** Which drain last replaced the orchestrator (for operators reading the Deployment). */
export const DRAIN_ID_ANNOTATION = 'sandbox-runtime/drain-id';
/** Our server-side apply field manager: the fields we own on the Deployment. */
export const FIELD_MANAGER = 'drain-controller';

/** Options of {@link createKubernetesDriver}. */
export interface KubernetesDriverOptions {
  apps: AppsV1Api;
  namespace: string;
  deployment: string;
  /** The container whose image a `{ image }` target replaces. */
  container: string;
}

/** The pod template we apply: the restart annotation, and the image for an upgrade. */
export function applyConfiguration(
  options: KubernetesDriverOptions,
  request: ReplaceRequest,
  currentImage?: string,
): Record<string, unknown> {
  const image = 'image' in request.target ? request.target.image : currentImage;
  // Only the fields we own: an apply configuration, not a whole Deployment.
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: options.deployment, namespace: options.namespace },
    spec: {
      template: {
        metadata: {
          annotations: {
            [RESTARTED_AT_ANNOTATION]: request.restartedAt,
            [DRAIN_ID_ANNOTATION]: request.drainId,
          },
        },
        ...(image === undefined ? {} : { spec: { containers: [{ name: options.container, image }] } }),
      },
    },
  };
}

/** Why the rollout of our template is not complete yet, or undefined once it is (as `kubectl rollout status`). */
export function rolloutPending(deployment: V1Deployment, request: ReplaceRequest): string | undefined {
  const annotations = deployment.spec?.template.metadata?.annotations ?? {};
  if (annotations[RESTARTED_AT_ANNOTATION] !== request.restartedAt) return 'our pod template is not applied';
  const status = deployment.status ?? {};
  const wanted = deployment.spec?.replicas ?? 1;
  const progressing = status.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return `rollout stuck: ${progressing.message ?? ''}`;
  if ((status.observedGeneration ?? 0) < (deployment.metadata?.generation ?? 0))
    return 'rollout not observed yet';
  if ((status.updatedReplicas ?? 0) < wanted)
    return `${status.updatedReplicas ?? 0} of ${wanted} pods updated`;
  if ((status.replicas ?? 0) > (status.updatedReplicas ?? 0)) return 'old pods still running';
  if ((status.availableReplicas ?? 0) < wanted)
    return `${status.availableReplicas ?? 0} of ${wanted} pods available`;
  return undefined;
}

const statusOf = (error: unknown): number | undefined => (error as { code?: number }).code;

async function currentImage(apps: AppsV1Api, options: KubernetesDriverOptions): Promise<string> {
  const deployment = await apps.readNamespacedDeployment({
    name: options.deployment,
    namespace: options.namespace,
  });
  const container = deployment.spec?.template.spec?.containers.find(
    (entry) => entry.name === options.container,
  );
  if (container?.image === undefined) {
    throw new ReplacementError(`deployment ${options.deployment} has no container ${options.container}`);
  }
  return container.image;
}

/**
 * Replaces the orchestrator by patching its Deployment with server-side apply (only `get` and `patch`
 * on that one Deployment): the restart annotation carries a value fixed per drain, so applying it
 * again after a crash changes nothing and never rolls the pods twice.
 */
export function createKubernetesDriver(options: KubernetesDriverOptions): OrchestratorDriver {
  const { apps, namespace, deployment: name } = options;
  return {
    kind: 'kubernetes',
    async replace(request) {
      try {
        // A restart applies the current image again: an apply that left out a field we own would remove it.
        const current = 'restart' in request.target ? await currentImage(apps, options) : undefined;
        await apps.patchNamespacedDeployment(
          {
            name,
            namespace,
            body: applyConfiguration(options, request, current),
            fieldManager: FIELD_MANAGER,
            force: true,
          },
          setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
        );
      } catch (error) {
        if (error instanceof ReplacementError) throw error;
        const code = statusOf(error);
        // Refusals (forbidden, not found, invalid) will not change by retrying; anything else is retried.
        if (code !== undefined && code >= 400 && code < 500 && code !== 409 && code !== 429) {
          throw new ReplacementError(`patching deployment ${namespace}/${name} was refused (${code})`);
        }
        throw error;
      }
    },
    async readiness(request): Promise<NodeReadiness> {
      try {
        const pending = rolloutPending(await apps.readNamespacedDeployment({ name, namespace }), request);
        return pending === undefined ? { ready: true } : { ready: false, reason: pending };
      } catch (error) {
        return {
          ready: false,
          reason: `reading deployment ${namespace}/${name} failed (${statusOf(error) ?? 'network'})`,
        };
      }
    },
  };
}
