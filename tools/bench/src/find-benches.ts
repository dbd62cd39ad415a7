import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

const PROJECT_FOLDERS = ['apps', 'libs', 'tools', 'e2e'];
const SKIPPED = new Set(['node_modules', 'dist', '.data', '.tools']);

/** Every `*.bench.ts` under the projects' folders, sorted, as paths relative to `root`. */
export async function findBenches(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of PROJECT_FOLDERS) await walk(join(root, folder), found);
  return found.map((file) => relative(root, file)).sort();
}

async function walk(dir: string, found: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, found);
    else if (entry.isFile() && entry.name.endsWith('.bench.ts')) found.push(path);
  }
}
