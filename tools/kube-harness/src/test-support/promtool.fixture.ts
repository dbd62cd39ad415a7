import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's prometheus package is unpacked (only promtool is used; nothing is installed). */
const CACHE = join(homedir(), '.cache', 'sandbox-runtime', 'promtool');
const CACHED = join(CACHE, 'usr', 'bin', 'promtool');

const works = (path: string) => spawnSync(path, ['--version'], { timeout: 30_000 }).status === 0;

/** Downloads Debian's prometheus package with apt and unpacks it into the cache. */
function unpackDebianPromtool(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-deb-'));
  try {
    const download = spawnSync('apt-get', ['download', 'prometheus'], { cwd: dir, timeout: 300_000 });
    const deb = readdirSync(dir).find((file) => file.endsWith('.deb'));
    if (download.status !== 0 || !deb) return false;
    mkdirSync(CACHE, { recursive: true });
    return spawnSync('dpkg-deb', ['-x', join(dir, deb), CACHE], { timeout: 120_000 }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * promtool: on PATH, else from Debian's `prometheus` package (downloaded once into the cache), else
 * undefined (the caller says why it skips).
 */
export function findPromtool(): string | undefined {
  if (works('promtool')) return 'promtool';
  if (existsSync(CACHED) && works(CACHED)) return CACHED;
  if (spawnSync('apt-get', ['--version']).status !== 0) return undefined;
  return unpackDebianPromtool() && works(CACHED) ? CACHED : undefined;
}
