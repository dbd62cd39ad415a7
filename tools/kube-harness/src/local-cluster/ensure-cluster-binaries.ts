import { createHash } from 'node:crypto';
import { chmod, copyFile, cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';
import { readKubeVersions } from '../build/ensure-kube-binaries';
import { clusterPrograms, patchShimManager, shimVariant, type ClusterProgram } from './cluster-programs';

/** Options of {@link ensureClusterBinaries}. */
export interface ClusterBuildOptions {
  /** @defaultValue `~/.cache/sandbox-runtime` */
  cacheDir?: string;
  /** @defaultValue 'go' */
  goPath?: string;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  /** `/proc/self/status` text, to pick the shim variant. @defaultValue this process's */
  procStatus?: string;
  logger?: Logger;
  /** Called after each program with whether it was built and how long it took. */
  onProgram?: (name: string, built: boolean, seconds: number) => void;
}

/** Paths of the cluster's programs, by name (`kubelet`, `containerd`, `coredns`, ...). */
export interface ClusterBinaries {
  paths: Record<string, string>;
  shimVariant: 'upstream' | 'oom-score-0';
  /** Programs built by this call (empty when all were cached). */
  built: string[];
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

async function programKey(program: ClusterProgram, variant: string): Promise<string> {
  const hash = createHash('sha256');
  const files = await Promise.all(
    ['go.mod', 'go.sum'].map((file) => readFile(join(program.moduleDir, file), 'utf8')),
  );
  const variantPart = program.patchOomScore ? variant : '';
  for (const part of [
    program.packagePath,
    program.tags?.join(',') ?? '',
    program.ldflags ?? '',
    variantPart,
    ...files,
  ]) {
    hash.update(`${part}\0`);
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * Writes a copy of the gVisor module with the shim's OOM-score line changed, and a go.mod beside it
 * that replaces the module with that copy; returns the `-modfile` to build with. `go build -overlay`
 * refuses files under the module cache, hence the copy.
 */
async function patchedShimModule(
  program: ClusterProgram,
  work: string,
  go: string,
  run: CommandRunner,
): Promise<string> {
  const listed = await run(
    go,
    ['-C', program.moduleDir, 'list', '-m', '-f', '{{.Dir}}', 'gvisor.dev/gvisor'],
    {
      timeoutMs: 10 * 60_000,
    },
  );
  const source = listed.stdout.trim();
  if (!source)
    await run(go, ['-C', program.moduleDir, 'mod', 'download', 'gvisor.dev/gvisor'], {
      timeoutMs: 10 * 60_000,
    });
  const copy = join(work, 'gvisor');
  await cp(source, copy, { recursive: true });
  const manager = join(copy, 'pkg', 'shim', 'v1', 'manager.go');
  await chmod(manager, 0o644);
  await writeFile(manager, patchShimManager(await readFile(manager, 'utf8')));
  const goMod = await readFile(join(program.moduleDir, 'go.mod'), 'utf8');
  const modFile = join(work, 'go.mod');
  await writeFile(modFile, `${goMod}\nreplace gvisor.dev/gvisor => ${copy}\n`);
  await copyFile(join(program.moduleDir, 'go.sum'), join(work, 'go.sum'));
  return modFile;
}

async function buildProgram(
  program: ClusterProgram,
  output: string,
  work: string,
  options: ClusterBuildOptions,
): Promise<void> {
  const run = options.run ?? runCommand;
  const go = options.goPath ?? 'go';
  await mkdir(work, { recursive: true });
  const args = [
    'CGO_ENABLED=0',
    'nice',
    '-n',
    '19',
    go,
    '-C',
    program.moduleDir,
    'build',
    '-trimpath',
    '-mod=readonly',
  ];
  if (program.patchOomScore) args.push(`-modfile=${await patchedShimModule(program, work, go, run)}`);
  if (program.tags?.length) args.push(`-tags=${program.tags.join(',')}`);
  args.push(
    `-ldflags=-s -w${program.ldflags ? ` ${program.ldflags}` : ''}`,
    '-o',
    output,
    program.packagePath,
  );
  await run('env', args, { timeoutMs: 45 * 60_000 });
}

/**
 * Builds (or finds) each program of the local cluster: kubelet, kube-controller-manager,
 * kube-scheduler, kube-proxy and kubectl from the harness's Kubernetes module; containerd and ctr;
 * gVisor's shim (the variant this host needs); CoreDNS; kube-router. Each lands in
 * `<cacheDir>/kube-cluster/<name>-<hash>/<name>`, the hash covering its module's go.mod and go.sum,
 * tags, linker flags and shim variant, so one version bump rebuilds one program. Builds run one at
 * a time at the lowest CPU priority and are renamed into place when complete.
 */
export async function ensureClusterBinaries(options: ClusterBuildOptions = {}): Promise<ClusterBinaries> {
  const kube = await readKubeVersions();
  const procStatus = options.procStatus ?? (await readFile('/proc/self/status', 'utf8'));
  const variant = shimVariant(procStatus);
  const root = join(options.cacheDir ?? join(homedir(), '.cache', 'sandbox-runtime'), 'kube-cluster');
  await mkdir(root, { recursive: true });
  const paths: Record<string, string> = {};
  const built: string[] = [];
  for (const listed of clusterPrograms(kube.kubernetes)) {
    const program =
      listed.name === 'containerd-shim-runsc-v1'
        ? { ...listed, patchOomScore: variant === 'oom-score-0' }
        : listed;
    const started = Date.now();
    const dir = join(root, `${program.name}-${await programKey(program, variant)}`);
    const path = join(dir, program.name);
    paths[program.name] = path;
    if (await exists(path)) {
      options.onProgram?.(program.name, false, (Date.now() - started) / 1_000);
      continue;
    }
    options.logger?.info({ program: program.name, dir }, 'building a local cluster program');
    const partial = await mkdtemp(join(root, `.${program.name}.partial-`));
    try {
      await buildProgram(program, join(partial, program.name), join(partial, 'work'), options);
      await rm(join(partial, 'work'), { recursive: true, force: true });
      if (!(await exists(path))) {
        await rm(dir, { recursive: true, force: true });
        await rename(partial, dir);
      }
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
    built.push(program.name);
    options.onProgram?.(program.name, true, (Date.now() - started) / 1_000);
  }
  return { paths, shimVariant: variant, built };
}
