import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import type { Exec } from './exec';
import { checkImageArchive, type CheckedArchive } from './image-archives';
import type { Kubectl } from './kubectl';
import { REPO_ROOT } from './node-image';
import type { ClusterProvider, VolumeClaim } from './provider';

export const SYSTEM_NAMESPACE = 'sandbox-system';
export const APPS_NAMESPACE = 'sandbox-apps';

/**
 * `npm run images -- --out DIR --overlay k3d` (its program, run directly: writing archives needs no
 * podman or runsc, so none of the host packages `npm run images` checks for), then every archive
 * checked as the importers read it.
 */
export async function buildImageArchives(
  exec: Exec,
  outDir: string,
  log: (line: string) => void,
): Promise<CheckedArchive[]> {
  const program = join(REPO_ROOT, 'tools', 'images', 'src', 'main.ts');
  await exec(process.execPath, ['--import', 'tsx', program, '--out', outDir, '--overlay', 'k3d'], {
    cwd: REPO_ROOT,
    timeoutMs: 30 * 60_000,
    onLine: log,
  });
  const files = (await readdir(outDir)).filter((name) => name.endsWith('.tar')).sort();
  const checked: CheckedArchive[] = [];
  for (const file of files) checked.push(await checkImageArchive(exec, join(outDir, file)));
  return checked;
}

/** Every image a rendering names, once each. */
export function renderedImages(objects: readonly KubernetesObject[]): string[] {
  const images = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'image' && typeof inner === 'string') images.add(inner);
        else visit(inner);
      }
  };
  objects.forEach(visit);
  return [...images].sort();
}

/**
 * Our images the rendering names that no archive holds (each must be imported, or its pod never
 * starts: nothing is pulled for `localhost/`); empty when the overlay and the build agree.
 */
export function imagesWithoutArchive(
  objects: readonly KubernetesObject[],
  archives: readonly CheckedArchive[],
): string[] {
  const built = new Set(archives.map((archive) => archive.reference));
  return renderedImages(objects).filter((image) => image.startsWith('localhost/') && !built.has(image));
}

/** `kubectl kustomize DIR`, parsed. */
export async function renderWithKubectl(kubectl: Kubectl, dir: string): Promise<KubernetesObject[]> {
  const text = await kubectl.run(['kustomize', dir], { timeoutMs: 120_000 });
  return (loadAllYaml(text) as (KubernetesObject | null)[]).filter((o): o is KubernetesObject => o !== null);
}

/** Every claim the rendering makes: PersistentVolumeClaims, and each StatefulSet replica's templates. */
export function volumeClaims(objects: readonly KubernetesObject[]): VolumeClaim[] {
  type Claim = KubernetesObject & {
    spec?: { accessModes?: string[]; resources?: { requests?: { storage?: string } } };
  };
  const claim = (namespace: string, name: string, template: Claim): VolumeClaim => ({
    namespace,
    name,
    storage: template.spec?.resources?.requests?.storage ?? '1Gi',
    accessModes: template.spec?.accessModes ?? ['ReadWriteOnce'],
  });
  return objects.flatMap((object) => {
    const namespace = object.metadata?.namespace ?? 'default';
    if (object.kind === 'PersistentVolumeClaim')
      return [claim(namespace, object.metadata?.name ?? '', object)];
    if (object.kind !== 'StatefulSet') return [];
    const set = object as KubernetesObject & { spec?: { replicas?: number; volumeClaimTemplates?: Claim[] } };
    const replicas = set.spec?.replicas ?? 1;
    return (set.spec?.volumeClaimTemplates ?? []).flatMap((template) =>
      Array.from({ length: replicas }, (_, index) =>
        claim(namespace, `${template.metadata?.name ?? ''}-${set.metadata?.name ?? ''}-${index}`, template),
      ),
    );
  });
}

/**
 * The cluster part, the Secrets (deploy/create-secrets.sh), volumes for the overlay's claims where
 * the provider must make them, then the pinned overlay; waits for rollouts.
 */
export async function installOverlay(
  exec: Exec,
  provider: ClusterProvider,
  pinned: { dir: string; objects: readonly KubernetesObject[] },
  log: (line: string) => void,
) {
  const kubectl = provider.kubectl;
  await kubectl.run(['apply', '--server-side', '-k', join(REPO_ROOT, 'deploy')], { timeoutMs: 180_000 });
  await exec('sh', [join(REPO_ROOT, 'deploy', 'create-secrets.sh')], {
    env: { KUBECONFIG: kubectl.kubeconfig, KUBECTL: kubectl.path },
    timeoutMs: 120_000,
    onLine: log,
  });
  await provider.provideVolumes(volumeClaims(pinned.objects));
  await kubectl.run(['apply', '--server-side', '-k', pinned.dir], { timeoutMs: 180_000 });
  await waitForRollouts(kubectl);
}

/** The label of a Deployment whose second replica is a lease standby (never ready while the holder lives). */
export const LEASE_STANDBY_LABEL = 'sandbox-runtime/lease-standby';

interface Workload {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { replicas?: number };
  status?: { updatedReplicas?: number; readyReplicas?: number; replicas?: number };
}

/**
 * A lease Deployment has rolled out when every replica runs the new template (no old pod left) and one
 * is ready: the holder. `kubectl rollout status` would wait for the standby's readiness forever.
 */
export function leaseRolledOut(workload: Workload): boolean {
  const wanted = workload.spec.replicas ?? 1;
  const { updatedReplicas = 0, readyReplicas = 0, replicas = 0 } = workload.status ?? {};
  return updatedReplicas === wanted && replicas === wanted && readyReplicas >= 1;
}

async function waitForLeaseRollout(kubectl: Kubectl, name: string): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const workload = await kubectl.json<Workload>(['-n', SYSTEM_NAMESPACE, 'get', 'deployment', name]);
    if (leaseRolledOut(workload)) return;
    if (Date.now() > deadline) throw new Error(`deployment/${name}: no lease holder ready after 600 s`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

/** Every StatefulSet and Deployment of the system namespace rolled out. */
export async function waitForRollouts(kubectl: Kubectl): Promise<void> {
  for (const kind of ['statefulset', 'deployment']) {
    const list = await kubectl.json<{ items: Workload[] }>(['-n', SYSTEM_NAMESPACE, 'get', kind]);
    for (const item of list.items) {
      if (item.metadata.labels?.[LEASE_STANDBY_LABEL] === 'true') {
        await waitForLeaseRollout(kubectl, item.metadata.name);
        continue;
      }
      await kubectl.run(
        ['-n', SYSTEM_NAMESPACE, 'rollout', 'status', `${kind}/${item.metadata.name}`, '--timeout=600s'],
        { timeoutMs: 620_000 },
      );
    }
  }
}
