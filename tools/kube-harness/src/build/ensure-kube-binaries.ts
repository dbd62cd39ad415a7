import { mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CommandRunner } from '@sandbox/sandbox-local';
import { runCommand } from '@sandbox/sandbox-local';
import { KUBE_MODULE_DIR, kubeVersions, versionLdflags, type KubeVersions } from './kube-versions';

/** The binaries one build produces. */
export const KUBE_BINARIES = ['kube-apiserver', 'etcd', 'kustomize'] as const;

// `go build -o dir/ tool` names each binary after its package path; etcd's ends in `server/v3`.
const GO_OUTPUT_NAMES: Record<(typeof KUBE_BINARIES)[number], string> = {
  'kube-apiserver': 'kube-apiserver',
  etcd: 'server',
  kustomize: 'kustomize',
};

// The module names the local cluster's programs as tools too; this build takes only these three.
const GO_PACKAGES = [
  'k8s.io/kubernetes/cmd/kube-apiserver',
  'go.etcd.io/etcd/server/v3',
  'sigs.k8s.io/kustomize/kustomize/v5',
] as const;

/** Options of {@link ensureKubeBinaries}. */
export interface KubeBuildOptions {
  /** @defaultValue `~/.cache/sandbox-runtime` */
  cacheDir?: string;
  /** @defaultValue 'go' */
  goPath?: string;
  /** @defaultValue {@link KUBE_MODULE_DIR} */
  moduleDir?: string;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  /** Whole build (module download included). @defaultValue 45 minutes */
  timeoutMs?: number;
  logger?: Logger;
}

/** Paths of a cached build. */
export interface KubeBinaries {
  apiserver: string;
  etcd: string;
  kustomize: string;
  versions: KubeVersions;
  /** `<cacheDir>/kube/<buildKey>` */
  dir: string;
  /** False when the cache already held this build. */
  built: boolean;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Reads the versions and build key of the module without building anything. */
export async function readKubeVersions(moduleDir = KUBE_MODULE_DIR): Promise<KubeVersions> {
  const [goMod, goSum] = await Promise.all([
    readFile(join(moduleDir, 'go.mod'), 'utf8'),
    readFile(join(moduleDir, 'go.sum'), 'utf8'),
  ]);
  return kubeVersions(goMod, goSum);
}

/**
 * Builds kube-apiserver, etcd and kustomize from the pinned Go module (sources from the Go module
 * proxy) into `<cacheDir>/kube/<buildKey>/`, unless that build is cached. The build runs at the lowest
 * CPU priority, writes into a temporary sibling directory and renames it into place, so a killed build
 * never leaves a half-written cache entry and two concurrent builds cannot corrupt each other.
 */
export async function ensureKubeBinaries(options: KubeBuildOptions = {}): Promise<KubeBinaries> {
  const moduleDir = options.moduleDir ?? KUBE_MODULE_DIR;
  const versions = await readKubeVersions(moduleDir);
  const root = join(options.cacheDir ?? join(homedir(), '.cache', 'sandbox-runtime'), 'kube');
  const dir = join(root, versions.buildKey);
  const result = (built: boolean): KubeBinaries => ({
    apiserver: join(dir, 'kube-apiserver'),
    etcd: join(dir, 'etcd'),
    kustomize: join(dir, 'kustomize'),
    versions,
    dir,
    built,
  });
  if (await isComplete(dir)) return result(false);
  await mkdir(root, { recursive: true });
  const partial = await mkdtemp(join(root, `.${versions.buildKey}.partial-`));
  try {
    options.logger?.info({ versions }, 'building kube-apiserver, etcd and kustomize');
    await buildInto(partial, moduleDir, versions, options);
    // Another build may have finished first; its result is as good as ours.
    if (!(await isComplete(dir))) {
      await rm(dir, { recursive: true, force: true });
      await rename(partial, dir);
    }
    return result(true);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

async function isComplete(dir: string): Promise<boolean> {
  const found = await Promise.all(KUBE_BINARIES.map((name) => exists(join(dir, name))));
  return found.every(Boolean);
}

async function buildInto(
  outDir: string,
  moduleDir: string,
  versions: KubeVersions,
  options: KubeBuildOptions,
): Promise<void> {
  const run = options.run ?? runCommand;
  const go = options.goPath ?? 'go';
  // `env` sets CGO_ENABLED for the Go command alone: all three are static Go binaries, as released.
  const args = ['CGO_ENABLED=0', 'nice', '-n', '19', go, '-C', moduleDir, 'build', '-trimpath'];
  // -s -w drop the symbol table and DWARF (panics still name functions): a third less to cache.
  const ldflags = `-s -w ${versionLdflags(versions.kubernetes)}`;
  args.push('-mod=readonly', `-ldflags=${ldflags}`, '-o', `${outDir}/`, ...GO_PACKAGES);
  await run('env', args, { timeoutMs: options.timeoutMs ?? 45 * 60_000 });
  for (const name of KUBE_BINARIES) {
    const built = join(outDir, GO_OUTPUT_NAMES[name]);
    if (!(await exists(built))) throw new Error(`go build did not produce ${GO_OUTPUT_NAMES[name]}`);
    if (built !== join(outDir, name)) await rename(built, join(outDir, name));
  }
}
