import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ensureNodeAppImage,
  exportNodeAppImage,
  runCommand,
  type CommandRunner,
  type NodeAppImageOptions,
} from '@sandbox/sandbox-local';
import { startRedis, type RedisFixture } from '@sandbox/testing';
import type { Logger } from 'pino';
import { IMAGE_CATALOG, type CatalogImage } from './catalog';
import { writePinKustomization } from './pin-kustomization';
import { startCheck } from './start-check';

/** One image built. */
export interface BuiltImage {
  name: string;
  tag: string;
  /** Bytes of its root filesystem (the uncompressed layer). */
  sizeBytes: number;
  /** The archive, with --out. */
  archive?: string;
  /** From start to the first `/healthz` answer under gVisor, with --check. */
  startupMs?: number;
}

export interface BuildImagesOptions {
  names: readonly string[];
  /** Write archives and the pinning kustomization here instead of importing into podman. */
  outDir?: string;
  overlay?: 'k3d' | 'production' | 'platform';
  /** Start each image under gVisor once (needs root, podman and runsc). */
  check?: boolean;
  logger: Logger;
  run?: CommandRunner;
}

async function imageOptions(name: string, image: CatalogImage, logger: Logger): Promise<NodeAppImageOptions> {
  const assets = image.assets ? await image.assets() : [];
  return { name, entryFile: image.entryFile, port: image.port, assets, logger };
}

async function podmanSize(run: CommandRunner, tag: string): Promise<number> {
  const { stdout } = await run('podman', ['image', 'inspect', '--format={{.Size}}', tag]);
  return Number(stdout.trim());
}

async function buildOne(name: string, options: BuildImagesOptions, run: CommandRunner): Promise<BuiltImage> {
  const image = IMAGE_CATALOG[name];
  if (!image) throw new Error(`unknown image ${name}`);
  const build = await imageOptions(name, image, options.logger);
  if (options.outDir) {
    const file = join(options.outDir, `sandbox-${name}.tar`);
    const built = await exportNodeAppImage(build, file);
    // The check runs what was written: podman loads the archive (as docker and ctr would).
    if (options.check) await run('podman', ['load', '--quiet', '--input', file], { timeoutMs: 300_000 });
    return { name, tag: built.tag, sizeBytes: built.archive.layerSize, archive: file };
  }
  const built = await ensureNodeAppImage(build);
  return { name, tag: built.tag, sizeBytes: await podmanSize(run, built.tag) };
}

/** Builds (and with `check`, starts) each named image, in order. */
export async function buildImages(options: BuildImagesOptions): Promise<BuiltImage[]> {
  const run = options.run ?? runCommand;
  if (options.outDir) await mkdir(options.outDir, { recursive: true });
  const outDir = options.outDir === undefined ? undefined : resolve(options.outDir);
  const results: BuiltImage[] = [];
  let redis: RedisFixture | undefined;
  const prefix = `img-${randomBytes(4).toString('hex')}`;
  try {
    for (const name of options.names) {
      const built = await buildOne(name, { ...options, outDir }, run);
      options.logger.info({ image: name, tag: built.tag }, 'image built');
      const image = IMAGE_CATALOG[name];
      if (options.check && image) {
        if (image.start.redis) redis ??= await startRedis();
        const checked = await startCheck({
          name,
          tag: built.tag,
          image,
          redisUrl: redis?.url,
          containerPrefix: prefix,
          run,
        });
        built.startupMs = checked.startupMs;
      }
      results.push(built);
    }
  } finally {
    await redis?.stop();
  }
  if (outDir)
    await writePinKustomization(
      outDir,
      options.overlay ?? 'k3d',
      results.map((r) => r.tag),
    );
  return results;
}
