import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import type { Logger } from 'pino';
import type { CommandRunner } from '../command-runner';
import { runCommand } from '../command-runner';
import { resolveNodeBinary, sharedLibraries } from './node-runtime';
import { writeImageArchive, type ImageArchive, type ImageRuntimeConfig } from './image-archive';
import {
  IMAGE_APP_PATH,
  IMAGE_NODE_PATH,
  layoutDigest,
  nodeAppLayout,
  writeLayout,
  type RootfsFile,
  type RootfsLayout,
} from './rootfs-layout';

/**
 * The environment every Node image sets for the allocator. glibc gives each thread that allocates
 * an arena of its own (up to eight per core) and keeps what is freed there; V8's four platform
 * threads and libuv's four would hold memory the main thread never asks for. Two arenas took the
 * adapter's peak RSS with 256 runners from 100 to 95 MB, at no CPU cost the benchmark could see.
 */
export const NODE_IMAGE_ENV: Readonly<Record<string, string>> = Object.freeze({ MALLOC_ARENA_MAX: '2' });

/** The unprivileged user (nobody) every image runs as. */
const IMAGE_USER = '65534:65534';

/** Options of {@link ensureNodeAppImage}. */
export interface NodeAppImageOptions {
  /** Short image name: the tag is `localhost/sandbox-<name>:<content hash>`. */
  name: string;
  /** The app's entry file (TypeScript or JavaScript), bundled with esbuild into one ES module. */
  entryFile: string;
  /** Port the app listens on, set as `PORT` and exposed. @defaultValue 8080 */
  port?: number;
  /** Extra read-only files, such as a UI's static assets. @defaultValue [] */
  assets?: readonly RootfsFile[];
  /** Extra image environment (plain values). @defaultValue {} */
  env?: Record<string, string>;
  /** Node 24 binary to copy in. @defaultValue the running Node (`process.execPath`) */
  nodeBinary?: string;
  /** @defaultValue runCommand */
  run?: CommandRunner;
  /** @defaultValue 'podman' */
  podmanPath?: string;
  logger?: Logger;
}

/** The image, and whether this call imported it. */
export interface NodeAppImage {
  tag: string;
  contentHash: string;
  created: boolean;
}

/**
 * ES module bundles have no `require`; CommonJS packages bundled in call it for Node's built-in
 * modules (and some resolve their own files with `require.resolve`), so every bundle gets one.
 */
const REQUIRE_BANNER =
  "import { createRequire as __sandboxCreateRequire } from 'node:module';\n" +
  'const require = __sandboxCreateRequire(import.meta.url);';

/**
 * Built-in modules an app bundle loads with `require` rather than `import`. An ES module import of a
 * built-in reads every one of its exports, and `node:http` has three (`WebSocket`, `CloseEvent`,
 * `MessageEvent`) that load Node's bundled undici when read: 13 MB of RSS in each service, for
 * classes none of them uses. `require` leaves those getters unread.
 */
// No `u` flag: esbuild runs its filters as Go regular expressions, which do not take it.
const REQUIRED_BUILTINS = /^(?:node:)?http$/;

const requireBuiltins: Plugin = {
  name: 'require-builtins',
  setup(build) {
    build.onResolve({ filter: REQUIRED_BUILTINS }, (args) =>
      args.kind === 'import-statement' || args.kind === 'dynamic-import'
        ? { path: args.path.replace(/^(?!node:)/u, 'node:'), namespace: 'required-builtin' }
        : undefined,
    );
    // A CommonJS module of one line: the bundle's `require` (the banner's) loads the built-in.
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** Bundles an app's entry file into one ES module for Node 24 (what images run). */
export async function bundleNodeApp(entryFile: string): Promise<string> {
  // Loaded on demand: only image builds (development and tests) need esbuild.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entryFile],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    // No comments or indentation: Node keeps every module's source in memory, and at two bytes a
    // character once any comment holds a non-Latin-1 one (the adapter's idle RSS: 98 -> 91 MB).
    // Names are kept, so stack traces still name their functions.
    minifyWhitespace: true,
    banner: { js: REQUIRE_BANNER },
    plugins: [requireBuiltins],
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for ${entryFile}`);
  return output.text;
}

function runtimeConfig(options: NodeAppImageOptions, port: number, contentHash: string): ImageRuntimeConfig {
  return {
    cmd: [IMAGE_NODE_PATH, IMAGE_APP_PATH],
    env: { PORT: String(port), HOST: '0.0.0.0', ...NODE_IMAGE_ENV, ...options.env },
    workingDir: '/app',
    user: IMAGE_USER,
    exposedPort: port,
    labels: { 'sandbox.image.name': options.name, 'sandbox.image.content-hash': contentHash },
  };
}

function podmanChanges(config: ImageRuntimeConfig): string[] {
  return [
    `CMD ${JSON.stringify(config.cmd)}`,
    ...Object.entries(config.env).map(([key, value]) => `ENV ${key}=${value}`),
    `WORKDIR ${config.workingDir}`,
    `USER ${config.user}`,
    ...(config.exposedPort === undefined ? [] : [`EXPOSE ${config.exposedPort}/tcp`]),
    ...Object.entries(config.labels).map(([key, value]) => `LABEL ${key}=${value}`),
  ];
}

/** An image's files, config and content-hash tag, before anything is written. */
export interface PreparedNodeAppImage {
  tag: string;
  contentHash: string;
  layout: RootfsLayout;
  config: ImageRuntimeConfig;
}

/** Bundles the app and lays out its image; the tag follows every file, mode and config value. */
async function prepareNodeAppImage(options: NodeAppImageOptions): Promise<PreparedNodeAppImage> {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(options.name))
    throw new Error('image name must be lowercase letters, digits and dashes');
  const run = options.run ?? runCommand;
  const port = options.port ?? 8080;
  const nodeBinary = await resolveNodeBinary(run, options.nodeBinary ?? process.execPath);
  const layout = nodeAppLayout({
    nodeBinary,
    libraries: await sharedLibraries(run, nodeBinary),
    appBundle: await bundleNodeApp(options.entryFile),
    assets: options.assets,
  });
  const configKey = JSON.stringify(runtimeConfig(options, port, ''));
  const contentHash = await layoutDigest(layout, configKey);
  const tag = `localhost/sandbox-${options.name}:${contentHash.slice(0, 16)}`;
  return { tag, contentHash, layout, config: runtimeConfig(options, port, contentHash) };
}

/** Writes the layout into a fresh directory and hands it to `use`, removing it afterwards. */
async function withRootfs<T>(layout: RootfsLayout, use: (root: string, workDir: string) => Promise<T>) {
  const workDir = await mkdtemp(join(tmpdir(), 'sandbox-image-'));
  try {
    const root = join(workDir, 'rootfs');
    await writeLayout(root, layout);
    return await use(root, workDir);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Builds the image as one archive file (OCI image layout and `docker save` layout in one tar) that
 * `docker load`, `podman load`, `ctr images import` and `k3d image import` accept.
 */
export async function exportNodeAppImage(
  options: NodeAppImageOptions,
  file: string,
): Promise<PreparedNodeAppImage & { archive: ImageArchive }> {
  const image = await prepareNodeAppImage(options);
  const run = options.run ?? runCommand;
  const archive = await withRootfs(image.layout, (rootDir) =>
    writeImageArchive({ run, rootDir, reference: image.tag, config: image.config, file }),
  );
  return { ...image, archive };
}

/**
 * Builds an OCI image for a Node app from local files only (no registry): a root filesystem with the
 * machine's Node 24 binary, its shared libraries and the bundled app, imported into podman. The tag is
 * a content hash, so an unchanged app is not rebuilt: the call returns at once when the tag exists.
 */
export async function ensureNodeAppImage(options: NodeAppImageOptions): Promise<NodeAppImage> {
  const run = options.run ?? runCommand;
  const podman = options.podmanPath ?? 'podman';
  const { tag, contentHash, layout, config } = await prepareNodeAppImage(options);
  const exists = await run(podman, ['image', 'exists', tag], { allowFailure: true });
  if (exists.exitCode === 0) return { tag, contentHash, created: false };
  await withRootfs(layout, async (root, workDir) => {
    const tarFile = join(workDir, 'rootfs.tar');
    const tarArgs = ['--create', '--file', tarFile, '--owner=0', '--group=0', '--numeric-owner'];
    await run('tar', [...tarArgs, '--directory', root, '.'], { timeoutMs: 120_000 });
    const changes = podmanChanges(config).flatMap((change) => ['--change', change]);
    await run(podman, ['import', '--quiet', ...changes, tarFile, tag], { timeoutMs: 300_000 });
  });
  options.logger?.info({ tag }, 'image imported');
  return { tag, contentHash, created: true };
}
