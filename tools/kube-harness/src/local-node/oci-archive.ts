import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';

/** A one-binary image: the static program at `/<name>`, run as its entrypoint. */
export interface StaticBinaryImage {
  /** Full reference containerd will know it by, e.g. `localhost/sandbox-node/pause:<hash>`. */
  reference: string;
  binaryPath: string;
  /** Path of the program inside the image. */
  entrypoint: string;
  /** `uid:gid` the program runs as. */
  user: string;
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

interface Blob {
  digest: string;
  size: number;
}

async function writeBlob(layoutDir: string, data: Uint8Array | string): Promise<Blob> {
  const digest = sha256(data);
  await writeFile(join(layoutDir, 'blobs', 'sha256', digest), data);
  return { digest: `sha256:${digest}`, size: Buffer.byteLength(data) };
}

/** The root filesystem as an uncompressed tar: mount points, then the binary; fixed owner and times. */
async function layerTar(work: string, image: StaticBinaryImage, run: CommandRunner): Promise<Buffer> {
  const rootfs = join(work, 'rootfs');
  for (const dir of ['dev', 'proc', 'sys', 'etc', 'tmp']) await mkdir(join(rootfs, dir), { recursive: true });
  await copyFile(image.binaryPath, join(rootfs, image.entrypoint));
  const tarPath = join(work, 'layer.tar');
  const flags = ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0'];
  await run('tar', [...flags, '-C', rootfs, '-cf', tarPath, '.'], { timeoutMs: 60_000 });
  return readFile(tarPath);
}

/**
 * Writes an OCI image archive (an OCI layout in a tar, what `ctr images import` reads) holding one
 * static binary, named by the `io.containerd.image.name` annotation. No registry and no daemon: the
 * layer, config, manifest and index are written here, byte for byte reproducible.
 */
export async function writeStaticBinaryImage(
  image: StaticBinaryImage,
  archivePath: string,
  run: CommandRunner = runCommand,
): Promise<void> {
  const work = await mkdtemp(`${archivePath}.work-`);
  try {
    const layout = join(work, 'layout');
    await mkdir(join(layout, 'blobs', 'sha256'), { recursive: true });
    const tar = await layerTar(work, image, run);
    const layer = await writeBlob(layout, gzipSync(tar, { level: 9 }));
    const config = await writeBlob(
      layout,
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Entrypoint: [image.entrypoint], User: image.user },
        rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(tar)}`] },
      }),
    );
    const manifest = await writeBlob(
      layout,
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
      }),
    );
    const tag = image.reference.slice(image.reference.lastIndexOf(':') + 1);
    const annotations = {
      'io.containerd.image.name': image.reference,
      'org.opencontainers.image.ref.name': tag,
    };
    const index = {
      schemaVersion: 2,
      manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...manifest, annotations }],
    };
    await writeFile(join(layout, 'index.json'), JSON.stringify(index));
    await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    await run('tar', ['-C', layout, '-cf', archivePath, 'oci-layout', 'index.json', 'blobs'], {
      timeoutMs: 60_000,
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
