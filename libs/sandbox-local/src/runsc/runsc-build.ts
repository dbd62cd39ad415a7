import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { CommandRunner } from '../command-runner';
import { runCommand } from '../command-runner';
import { assertTrustedBinary } from './trusted-binary';

/** The Go module (go.mod, go.sum) that names the gVisor version to build. */
export const RUNSC_MODULE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'runsc');

/** The gVisor module version a go.mod requires. */
export function gvisorVersion(goMod: string): string {
  const version = /^\s*gvisor\.dev\/gvisor\s+(v\S+)/m.exec(goMod)?.[1];
  if (!version) throw new Error('go.mod does not require gvisor.dev/gvisor');
  return version;
}

/** Options of {@link ensureRunscBuild}. */
export interface RunscBuildOptions {
  /** @defaultValue `~/.cache/sandbox-runtime` */
  cacheDir?: string;
  /** @defaultValue 'go' */
  goPath?: string;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  logger?: Logger;
}

/** A runsc binary in the cache. */
export interface RunscBuild {
  path: string;
  version: string;
  built: boolean;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Builds runsc from the pinned gVisor module with plain Go tooling (modules from the Go module proxy)
 * into `<cacheDir>/runsc/<version>/runsc`, unless it is there already. The binary is written under a
 * temporary name and renamed, so a killed build never leaves a half-written runsc behind.
 */
export async function ensureRunscBuild(options: RunscBuildOptions = {}): Promise<RunscBuild> {
  const run = options.run ?? runCommand;
  const version = gvisorVersion(await readFile(join(RUNSC_MODULE_DIR, 'go.mod'), 'utf8'));
  const dir = join(options.cacheDir ?? join(homedir(), '.cache', 'sandbox-runtime'), 'runsc', version);
  const path = join(dir, 'runsc');
  if (await exists(path)) {
    await assertTrustedBinary(path);
    return { path, version, built: false };
  }
  await mkdir(dir, { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  try {
    options.logger?.info({ version }, 'building runsc');
    const ldflags = `-X gvisor.dev/gvisor/runsc/version.version=${version}`;
    const build = [
      options.goPath ?? 'go',
      '-C',
      RUNSC_MODULE_DIR,
      'build',
      '-trimpath',
      `-ldflags=${ldflags}`,
      '-o',
      partial,
    ];
    // `env` sets CGO_ENABLED for the Go command alone; runsc is a static Go binary.
    await run('env', ['CGO_ENABLED=0', ...build, 'gvisor.dev/gvisor/runsc'], { timeoutMs: 30 * 60_000 });
    await rename(partial, path);
    await assertTrustedBinary(path);
    return { path, version, built: true };
  } finally {
    await rm(partial, { force: true });
  }
}
