import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Exec } from './exec';
import { K3S_BASE_IMAGE, NODE_IMAGE_NAME } from './pins';

/** The repository root. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** Everything `deploy/k3s/Dockerfile` reads, relative to the repository root. */
export const NODE_IMAGE_INPUTS = {
  dockerfile: 'deploy/k3s/Dockerfile',
  context: 'deploy/k3s',
  template: 'deploy/k3s/config-v3.toml.tmpl',
  runscFlags: 'deploy/k3s/runsc.toml',
  runscModule: 'libs/sandbox-local/runsc',
  shimModule: 'tools/kube-harness/gvisor-shim',
} as const;

/** The tag: a hash of every input, so a change to any of them builds a new image. */
export async function nodeImageTag(root = REPO_ROOT): Promise<string> {
  const hash = createHash('sha256').update(K3S_BASE_IMAGE);
  const { dockerfile, template, runscFlags, runscModule, shimModule } = NODE_IMAGE_INPUTS;
  const files = [
    dockerfile,
    template,
    runscFlags,
    ...[runscModule, shimModule].flatMap((dir) => [`${dir}/go.mod`, `${dir}/go.sum`]),
  ];
  for (const file of files) hash.update(`${file}\0`).update(await readFile(join(root, file)));
  return `${NODE_IMAGE_NAME}:${hash.digest('hex').slice(0, 16)}`;
}

/** The `docker build` arguments for the node image (named contexts for the two Go modules). */
export function nodeImageBuildArgs(tag: string, root = REPO_ROOT): string[] {
  const { dockerfile, context, runscModule, shimModule } = NODE_IMAGE_INPUTS;
  return [
    'build',
    '--file',
    join(root, dockerfile),
    '--build-context',
    `runsc-module=${join(root, runscModule)}`,
    '--build-context',
    `shim-module=${join(root, shimModule)}`,
    '--build-arg',
    `K3S_IMAGE=${K3S_BASE_IMAGE}`,
    '--tag',
    tag,
    join(root, context),
  ];
}

/** Builds the k3s-with-gVisor image unless the engine already has this tag; returns the tag. */
export async function ensureNodeImage(exec: Exec, log: (line: string) => void): Promise<string> {
  const tag = await nodeImageTag();
  const present = await exec('docker', ['image', 'inspect', tag], { allowFailure: true });
  if (present.code === 0) return tag;
  await exec('docker', nodeImageBuildArgs(tag), {
    env: { DOCKER_BUILDKIT: '1' },
    timeoutMs: 45 * 60_000,
    onLine: log,
  });
  return tag;
}
