import { dirname, join, posix } from 'node:path';
import { createRequire } from 'node:module';
import type { RootfsFile } from '@sandbox/sandbox-local';

const require = createRequire(import.meta.url);

/** A package's files, by path inside the package, as read-only image files under /app/node_modules. */
function packageFiles(name: string, files: readonly string[]): RootfsFile[] {
  const root = dirname(require.resolve(`${name}/package.json`));
  return files.map((file) => ({
    path: posix.join('/app/node_modules', name, file),
    mode: 0o644,
    source: join(root, file),
  }));
}

/**
 * The libsecp256k1 binding of `@sandbox/tickets` (npm package secp256k1) for linux-x64 glibc images.
 * Bundles cannot hold a native addon: the binding stays a runtime `require` from /app/main.mjs, so its
 * JavaScript, its prebuilt binary and node-gyp-build (which picks the binary) go where that lookup
 * lands. Without them the services still start, on the pure-JS curve (and say so in their log).
 */
export function secp256k1BindingAssets(): Promise<RootfsFile[]> {
  return Promise.resolve([
    ...packageFiles('secp256k1', [
      'package.json',
      'bindings.js',
      'lib/index.js',
      'lib/uint8array.js',
      'prebuilds/linux-x64/secp256k1.glibc.node',
    ]),
    ...packageFiles('node-gyp-build', ['package.json', 'index.js', 'node-gyp-build.js']),
  ]);
}
