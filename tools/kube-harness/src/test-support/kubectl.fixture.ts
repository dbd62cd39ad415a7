import { spawnSync } from 'node:child_process';
import { ensureClusterBinaries } from '../local-cluster/ensure-cluster-binaries';

const works = (path: string) =>
  spawnSync(path, ['version', '--client'], { encoding: 'utf8', timeout: 30_000 }).status === 0;

/**
 * The kubectl a test runs: `KUBECTL` of `env` (a path), else the one the harness builds with the local
 * cluster's programs (`npm run kube:build`). Throws when neither works: a test that needs kubectl
 * fails without it, it never skips (hosted CI has no kubectl of its own).
 */
export async function requireKubectl(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const candidates = [env['KUBECTL'], (await ensureClusterBinaries()).paths['kubectl']].filter(
    (path): path is string => path !== undefined && path !== '',
  );
  for (const path of candidates) if (works(path)) return path;
  throw new Error(
    `no working kubectl (tried ${candidates.join(', ')}): set KUBECTL to its path or let the harness build it ` +
      '(npm run kube:build)',
  );
}
