import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RunscBuild } from './runsc-build';
import { RUNSC_MODULE_DIR, gvisorVersion } from './runsc-build';
import { assertTrustedBinary } from './trusted-binary';

/**
 * The runsc that {@link ensureRunscBuild} would return, if it is already in the cache; never builds.
 * For services that must start quickly and fall back to Debian's runsc instead of building.
 */
export async function findCachedRunsc(options: { cacheDir?: string } = {}): Promise<RunscBuild | undefined> {
  const version = gvisorVersion(await readFile(join(RUNSC_MODULE_DIR, 'go.mod'), 'utf8'));
  const cacheDir = options.cacheDir ?? join(homedir(), '.cache', 'sandbox-runtime');
  const path = join(cacheDir, 'runsc', version, 'runsc');
  const found = await stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!found) return undefined;
  await assertTrustedBinary(path);
  return { path, version, built: false };
}
