import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  KubernetesObjectApi,
  PatchStrategy,
  loadAllYaml,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { CommandRunner } from '@sandbox/sandbox-local';
import { runCommand } from '@sandbox/sandbox-local';
import { ensureDefaultServiceAccount } from '../control-plane/test-namespaces';

/** The repository's `deploy/` kustomization. */
export const DEPLOY_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'deploy');

/** The field manager our applies are recorded under. */
export const FIELD_MANAGER = 'kube-harness';

/**
 * Renders a kustomization with the real kustomize (built by the harness), exactly what
 * `kubectl apply -k` would send, and parses the result into objects.
 */
export async function renderKustomization(
  kustomize: string,
  dir: string = DEPLOY_DIR,
  run: CommandRunner = runCommand,
): Promise<KubernetesObject[]> {
  const rendered = await run(kustomize, ['build', dir], { timeoutMs: 60_000 });
  return (loadAllYaml(rendered.stdout) as (KubernetesObject | null)[]).filter(
    (object): object is KubernetesObject => object !== null,
  );
}

/**
 * Server-side applies the objects in order (kustomize already puts namespaces first), as
 * `kubectl apply --server-side` does; applying the same objects again changes nothing.
 */
export async function applyObjects(kubeConfig: KubeConfig, objects: KubernetesObject[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const object of objects) {
    await client.patch(object, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }
}

/**
 * Renders `deploy/` and applies it to a harness as the admin, then does what kube-controller-manager
 * would for the namespaces it created (their `default` service accounts). Returns the objects applied.
 */
export async function applyDeploy(admin: KubeConfig, kustomize: string): Promise<KubernetesObject[]> {
  const objects = await renderKustomization(kustomize);
  await applyObjects(admin, objects);
  for (const object of objects) {
    if (object.kind === 'Namespace' && object.metadata?.name) {
      await ensureDefaultServiceAccount(admin, object.metadata.name);
    }
  }
  return objects;
}
