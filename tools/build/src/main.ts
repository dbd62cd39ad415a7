// `npm run build`: bundles each app's main.ts (and each tool with a main.ts) into dist/<folder>/<name>/main.js
// for container images. Workspace libraries are bundled in; npm packages stay external. An app with a
// `bin` in its package.json is a command line: it is also bundled into one self-contained executable
// file, dist/<folder>/<name>/<bin>.mjs, npm packages included, that needs nothing but Node 24.
import { readdir, readFile, chmod } from 'node:fs/promises';
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
/** Every export of every workspace library (`@sandbox/x` and subpaths such as `@sandbox/x/clock`). */
async function libraryExports(): Promise<[string, string][]> {
  const aliases: [string, string][] = [];
  for (const lib of await readdir(join(root, 'libs'))) {
    const manifestPath = join(root, 'libs', lib, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
      name: string;
      exports?: Record<string, string>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {}))
      aliases.push([join(manifest.name, subpath), join(root, 'libs', lib, target)]);
  }
  return aliases;
}
const libraryAliases = Object.fromEntries(await libraryExports());
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  alias: libraryAliases,
  logLevel: 'warning',
} as const;

/** The `bin` names of a project's package.json (none for services). */
async function binNames(folder: string, name: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(root, folder, name, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  if (manifest.bin === undefined) return [];
  return typeof manifest.bin === 'string' ? [name] : Object.keys(manifest.bin);
}

for (const { folder, name, entry } of entries) {
  await build({
    ...common,
    entryPoints: [entry],
    outfile: join(root, 'dist', folder, name, 'main.js'),
    sourcemap: true,
    packages: 'external',
  });
  process.stdout.write(`built dist/${folder}/${name}/main.js\n`);
  for (const bin of await binNames(folder, name)) {
    const outfile = join(root, 'dist', folder, name, `${bin}.mjs`);
    await build({
      ...common,
      entryPoints: [entry],
      outfile,
      // CommonJS dependencies call require() for Node built-ins, which ESM output lacks.
      banner: {
        js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    });
    await chmod(outfile, 0o755);
    process.stdout.write(`built dist/${folder}/${name}/${bin}.mjs (self-contained)\n`);
  }
}
