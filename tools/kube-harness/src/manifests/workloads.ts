import type { KubernetesObject, V1PodTemplateSpec } from '@kubernetes/client-node';
import { join } from 'node:path';
import { DEPLOY_DIR } from './manifests';

/** The overlays an operator applies. */
export const OVERLAYS = ['k3d', 'production'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** The directory of one overlay. */
export const overlayDir = (overlay: Overlay): string => join(DEPLOY_DIR, overlay);

/** A Deployment or StatefulSet of a rendered overlay, with its pod template. */
export interface Workload {
  kind: 'Deployment' | 'StatefulSet';
  name: string;
  namespace: string;
  template: V1PodTemplateSpec;
  /** A StatefulSet's volume claim templates (their names), each one a volume of its pods. */
  claims: string[];
}

/** The workloads among rendered objects. */
export function workloads(objects: readonly KubernetesObject[]): Workload[] {
  return objects
    .filter((object) => object.kind === 'Deployment' || object.kind === 'StatefulSet')
    .map((object) => ({
      kind: object.kind as Workload['kind'],
      name: object.metadata?.name ?? '',
      namespace: object.metadata?.namespace ?? '',
      template: (object as { spec: { template: V1PodTemplateSpec } }).spec.template,
      claims: (
        (object as { spec: { volumeClaimTemplates?: { metadata?: { name?: string } }[] } }).spec
          .volumeClaimTemplates ?? []
      ).map((claim) => claim.metadata?.name ?? ''),
    }));
}

/** Names of the Secrets a pod template mounts (plain and projected volumes, env references). */
export function mountedSecrets(template: V1PodTemplateSpec): string[] {
  const names = new Set<string>();
  for (const volume of template.spec?.volumes ?? []) {
    if (volume.secret?.secretName) names.add(volume.secret.secretName);
    for (const source of volume.projected?.sources ?? [])
      if (source.secret?.name) names.add(source.secret.name);
  }
  for (const container of template.spec?.containers ?? []) {
    for (const env of container.env ?? [])
      if (env.valueFrom?.secretKeyRef?.name) names.add(env.valueFrom.secretKeyRef.name);
    for (const from of container.envFrom ?? []) if (from.secretRef?.name) names.add(from.secretRef.name);
  }
  return [...names].sort();
}

/** Every container image the objects name. */
export function containerImages(objects: readonly KubernetesObject[]): string[] {
  const images = workloads(objects).flatMap(({ template }) =>
    [...(template.spec?.initContainers ?? []), ...(template.spec?.containers ?? [])].map(
      (container) => container.image ?? '',
    ),
  );
  return [...new Set(images)].sort();
}

/** The value of one environment variable of a workload's first container. */
export function containerEnv(workload: Workload, name: string): string | undefined {
  return workload.template.spec?.containers[0]?.env?.find((env) => env.name === name)?.value;
}

/** The Secret key a file path of a workload's first container reads (`undefined`: no Secret there). */
export function secretKeyAt(workload: Workload, path: string): { secret: string; key: string } | undefined {
  const container = workload.template.spec?.containers[0];
  const mount = container?.volumeMounts?.find((m) => path.startsWith(`${m.mountPath.replace(/\/$/u, '')}/`));
  const volume = workload.template.spec?.volumes?.find((v) => v.name === mount?.name);
  if (!mount || !volume?.secret?.secretName) return undefined;
  const file = path.slice(mount.mountPath.replace(/\/$/u, '').length + 1);
  const items = volume.secret.items;
  const key = items ? items.find((item) => item.path === file)?.key : file;
  return key === undefined ? undefined : { secret: volume.secret.secretName, key };
}
