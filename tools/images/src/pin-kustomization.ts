import { writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's deploy/ folder. */
export const DEPLOY_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy');

/** An image reference split at its tag: `localhost/sandbox-adapter` and `0123456789abcdef`. */
export function splitReference(reference: string): { name: string; tag: string } {
  const colon = reference.lastIndexOf(':');
  if (colon <= reference.lastIndexOf('/')) throw new Error(`image reference without a tag: ${reference}`);
  return { name: reference.slice(0, colon), tag: reference.slice(colon + 1) };
}

/**
 * A kustomization that is the overlay with every image we build pinned to its content-hash tag
 * (deploy/ names our images without a tag, so only a build can say which one runs).
 */
export function pinKustomization(overlayPath: string, references: readonly string[]): string {
  const images = references
    .map(splitReference)
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap(({ name, tag }) => [`  - name: ${name}`, `    newTag: '${tag}'`]);
  return [
    '# Written by `npm run images -- --out`: the overlay with the images just built.',
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    `  - ${overlayPath}`,
    'images:',
    ...images,
    '',
  ].join('\n');
}

/** Writes `outDir/kustomization.yaml` for deploy/<overlay> (referenced by a relative path). */
export async function writePinKustomization(
  outDir: string,
  overlay: string,
  references: readonly string[],
): Promise<string> {
  const file = join(outDir, 'kustomization.yaml');
  await writeFile(file, pinKustomization(relative(outDir, join(DEPLOY_DIR, overlay)), references));
  return file;
}
