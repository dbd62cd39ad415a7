import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CommandRunner } from '../command-runner';
import { runCommand } from '../command-runner';
import { resolveNodeBinary, sharedLibraries } from './node-runtime';
import { IMAGE_APP_PATH, IMAGE_NODE_PATH, layoutDigest, nodeAppLayout, writeLayout } from './rootfs-layout';

/** Options of {@link ensureNodeAppImage}. */
export interface NodeAppImageOptions {
  /** Short image name: the tag is `localhost/sandbox-<name>:<content hash>`. */
  name: string;
  /** The app's entry file (TypeScript or JavaScript), bundled with esbuild into one ES module. */
  entryFile: string;
  /** Port the app listens on, set as `PORT` and exposed. @defaultValue 8080 */
  port?: number;
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
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for ${entryFile}`);
  return output.text;
}

function imageChanges(options: NodeAppImageOptions, port: number, contentHash: string): string[] {
  const env = { PORT: String(port), HOST: '0.0.0.0', ...options.env };
  return [
    `CMD ${JSON.stringify([IMAGE_NODE_PATH, IMAGE_APP_PATH])}`,
    ...Object.entries(env).map(([key, value]) => `ENV ${key}=${value}`),
    'WORKDIR /app',
    'USER 65534:65534',
    `EXPOSE ${port}/tcp`,
    `LABEL sandbox.image.name=${options.name}`,
    `LABEL sandbox.image.content-hash=${contentHash}`,
  ];
}

/**
 * Builds an OCI image for a Node app from local files only (no registry): a root filesystem with the
 * machine's Node 24 binary, its shared libraries and the bundled app, imported into podman. The tag is
 * a content hash, so an unchanged app is not rebuilt: the call returns at once when the tag exists.
 */
export async function ensureNodeAppImage(options: NodeAppImageOptions): Promise<NodeAppImage> {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(options.name))
    throw new Error('image name must be lowercase letters, digits and dashes');
  const run = options.run ?? runCommand;
  const podman = options.podmanPath ?? 'podman';
  const port = options.port ?? 8080;
  const nodeBinary = await resolveNodeBinary(run, options.nodeBinary ?? process.execPath);
  const layout = nodeAppLayout({
    nodeBinary,
    libraries: await sharedLibraries(run, nodeBinary),
    appBundle: await bundleNodeApp(options.entryFile),
  });
  const configKey = JSON.stringify(imageChanges(options, port, ''));
  const contentHash = await layoutDigest(layout, configKey);
  const tag = `localhost/sandbox-${options.name}:${contentHash.slice(0, 16)}`;
  const exists = await run(podman, ['image', 'exists', tag], { allowFailure: true });
  if (exists.exitCode === 0) return { tag, contentHash, created: false };

  const workDir = await mkdtemp(join(tmpdir(), 'sandbox-image-'));
  try {
    const root = join(workDir, 'rootfs');
    await writeLayout(root, layout);
    const tarFile = join(workDir, 'rootfs.tar');
    await run(
      'tar',
      ['--create', '--file', tarFile, '--owner=0', '--group=0', '--numeric-owner', '--directory', root, '.'],
      {
        timeoutMs: 120_000,
      },
    );
    const changes = imageChanges(options, port, contentHash).flatMap((change) => ['--change', change]);
    await run(podman, ['import', '--quiet', ...changes, tarFile, tag], { timeoutMs: 300_000 });
    options.logger?.info({ tag }, 'image imported');
    return { tag, contentHash, created: true };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
