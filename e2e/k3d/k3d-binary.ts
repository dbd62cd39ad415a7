import { createHash } from 'node:crypto';
import { chmod, mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Exec } from './exec';
import { K3D } from './pins';

/** Options of {@link findK3d}. */
export interface FindK3dOptions {
  exec: Exec;
  /** @defaultValue `~/.cache/sandbox-runtime/k3d/<version>/k3d` */
  cachePath?: string;
  /** @defaultValue globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** @defaultValue process.arch mapped to Go's names */
  arch?: string;
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Downloads the pinned release to `path` when its SHA-256 is the pinned one; says why not otherwise. */
export async function downloadK3d(
  path: string,
  arch: string,
  fetchFn: typeof fetch,
  pinned: Readonly<Record<string, string>> = K3D.sha256,
): Promise<string | undefined> {
  const expected = pinned[arch];
  if (!expected) return `no pinned k3d ${K3D.version} for ${arch}`;
  let body: Buffer;
  try {
    const response = await fetchFn(K3D.url(arch), { signal: AbortSignal.timeout(60_000) });
    if (!response.ok) return `downloading k3d ${K3D.version}: HTTP ${response.status}`;
    body = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    return `downloading k3d ${K3D.version} failed (${(error as Error).message}); put k3d on PATH`;
  }
  const actual = createHash('sha256').update(body).digest('hex');
  if (actual !== expected) return `k3d ${K3D.version} download has sha256 ${actual}, pinned ${expected}`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.partial`, body);
  await chmod(`${path}.partial`, 0o755);
  await rename(`${path}.partial`, path);
  return undefined;
}

/** k3d on PATH; else the pinned release in the cache (downloaded once, where the network allows). */
export async function findK3d(options: FindK3dOptions): Promise<{ path: string } | { missing: string }> {
  const onPath = await options.exec('k3d', ['version'], { allowFailure: true, timeoutMs: 30_000 });
  if (onPath.code === 0) return { path: 'k3d' };
  const path = options.cachePath ?? join(homedir(), '.cache', 'sandbox-runtime', 'k3d', K3D.version, 'k3d');
  if (!(await exists(path))) {
    const arch = options.arch ?? GO_ARCH[process.arch] ?? process.arch;
    const failure = await downloadK3d(path, arch, options.fetch ?? globalThis.fetch);
    if (failure) return { missing: `not on PATH; ${failure}` };
  }
  return { path };
}
