// `npm run build`: bundles each app's main.ts (and each tool with a main.ts) into dist/<folder>/<name>/main.js
// for container images. Workspace libraries are bundled in; npm packages stay external.
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = process.cwd();
const entries: { folder: string; name: string; entry: string }[] = [];
for (const folder of ['apps', 'tools']) {
  for (const name of await readdir(join(root, folder))) {
    const entry = join(root, folder, name, 'src', 'main.ts');
    if (existsSync(entry)) entries.push({ folder, name, entry });
  }
}
const libraryAliases = Object.fromEntries(
  (await readdir(join(root, 'libs')))
    .filter((lib) => existsSync(join(root, 'libs', lib, 'src', 'index.ts')))
    .map((lib) => [`@sandbox/${lib}`, join(root, 'libs', lib, 'src', 'index.ts')]),
);
for (const { folder, name, entry } of entries) {
  await build({
    entryPoints: [entry],
    outfile: join(root, 'dist', folder, name, 'main.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: true,
    packages: 'external',
    alias: libraryAliases,
    logLevel: 'warning',
  });
  process.stdout.write(`built dist/${folder}/${name}/main.js\n`);
}
