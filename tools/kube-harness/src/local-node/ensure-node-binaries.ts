import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';

const HARNESS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One program of the local node, built with `go build` from a Go module of ours. */
export interface NodeProgram {
  /** File name in the cache directory. */
  name: string;
  moduleDir: string;
  /** Package to build (a `tool` of the module, or `.`). */
  packagePath: string;
}

/**
 * The node's own programs: crictl (the CRI client of cri-tools, to talk to containerd as the kubelet
 * does) and the pod sandbox program.
 */
export const NODE_PROGRAMS: readonly NodeProgram[] = [
  {
    name: 'crictl',
    moduleDir: join(HARNESS_DIR, 'cri-tools'),
    packagePath: 'sigs.k8s.io/cri-tools/cmd/crictl',
  },
  { name: 'pause', moduleDir: join(HARNESS_DIR, 'pause'), packagePath: '.' },
];

/**
 * gVisor's containerd shim, from the same gVisor version as the driver's runsc. Not built by
 * default: it cannot start on a host without CAP_SYS_RESOURCE (see the harness README).
 */
export const GVISOR_SHIM_PROGRAM: NodeProgram = {
  name: 'containerd-shim-runsc-v1',
  moduleDir: join(HARNESS_DIR, 'gvisor-shim'),
  packagePath: 'gvisor.dev/gvisor/shim',
};

/** Options of {@link ensureNodeBinaries}. */
export interface NodeBuildOptions {
  /** @defaultValue `~/.cache/sandbox-runtime` */
  cacheDir?: string;
  /** @defaultValue 'go' */
  goPath?: string;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  /** @defaultValue {@link NODE_PROGRAMS} */
  programs?: readonly NodeProgram[];
  logger?: Logger;
}

/** A cached build: `dir` holds one binary per program (put it first on the PATH of containerd). */
export interface NodeBinaries {
  dir: string;
  crictl: string;
  pause: string;
  /** First 12 hex of the hash of every module's go.mod, go.sum and Go source. */
  buildKey: string;
  built: boolean;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function moduleHash(programs: readonly NodeProgram[]): Promise<string> {
  const hash = createHash('sha256');
  for (const program of programs) {
    for (const file of ['go.mod', 'go.sum', 'main.go']) {
      const content = await readFile(join(program.moduleDir, file), 'utf8').catch(() => '');
      hash.update(`${program.name}/${file}\0${content}\0`);
    }
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * Builds the node's programs into `<cacheDir>/kube-node/<buildKey>/` unless that build is cached:
 * static binaries (CGO off), lowest CPU priority, written into a temporary sibling and renamed into
 * place so a killed build leaves nothing half-written.
 */
export async function ensureNodeBinaries(options: NodeBuildOptions = {}): Promise<NodeBinaries> {
  const programs = options.programs ?? NODE_PROGRAMS;
  const buildKey = await moduleHash(programs);
  const root = join(options.cacheDir ?? join(homedir(), '.cache', 'sandbox-runtime'), 'kube-node');
  const dir = join(root, buildKey);
  const result = (built: boolean): NodeBinaries => ({
    dir,
    crictl: join(dir, 'crictl'),
    pause: join(dir, 'pause'),
    buildKey,
    built,
  });
  const complete = async (): Promise<boolean> =>
    (await Promise.all(programs.map((program) => exists(join(dir, program.name))))).every(Boolean);
  if (await complete()) return result(false);
  await mkdir(root, { recursive: true });
  const partial = await mkdtemp(join(root, `.${buildKey}.partial-`));
  try {
    const run = options.run ?? runCommand;
    for (const program of programs) {
      options.logger?.info({ program: program.name }, 'building a local node program');
      const go = [options.goPath ?? 'go', '-C', program.moduleDir, 'build', '-trimpath', '-mod=readonly'];
      const args = [
        'CGO_ENABLED=0',
        'nice',
        '-n',
        '19',
        ...go,
        '-ldflags=-s -w',
        '-o',
        join(partial, program.name),
        program.packagePath,
      ];
      await run('env', args, { timeoutMs: 30 * 60_000 });
    }
    if (!(await complete())) {
      await rm(dir, { recursive: true, force: true });
      await rename(partial, dir);
    }
    return result(true);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
