import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeBinaries } from '../build/ensure-kube-binaries';

const works = (path: string) =>
  spawnSync(path, ['version', '--client'], { encoding: 'utf8', timeout: 30_000 }).status === 0;

/**
 * The kubectl a test runs: `KUBECTL` of `env` (a path), else the one the harness builds beside kube-apiserver
 * (`<binaries.dir>/kubectl`), else `kubectl` on PATH. Throws when none works: a test that needs
 * kubectl fails without it, it never skips (hosted CI has no kubectl of its own).
 */
export function requireKubectl(
  binaries: Pick<KubeBinaries, 'dir'>,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const candidates = [env['KUBECTL'], join(binaries.dir, 'kubectl'), 'kubectl'].filter(
    (path): path is string => path !== undefined && path !== '',
  );
  for (const path of candidates) if ((path === 'kubectl' || existsSync(path)) && works(path)) return path;
  throw new Error(
    `no working kubectl (tried ${candidates.join(', ')}): set KUBECTL to its path, let the harness ` +
      'build it (npm run kube:build), or put kubectl on PATH',
  );
}
