import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CommandRunner } from '../command-runner';

/** The runtime part of an image's config (what `podman import --change` also sets). */
export interface ImageRuntimeConfig {
  cmd: string[];
  env: Record<string, string>;
  workingDir: string;
  user: string;
  /** The port the program serves; absent for a client that serves none. */
  exposedPort?: number;
  labels: Record<string, string>;
}

/** What {@link writeImageArchive} wrote. */
export interface ImageArchive {
  file: string;
  /** Digest of the image manifest (what `ctr` and OCI registries call the image). */
  manifestDigest: string;
  /** Digest of the config: the image ID `docker load` and `podman load` report. */
  configDigest: string;
  /** Bytes of the uncompressed layer (the image's size on disk once unpacked). */
  layerSize: number;
}

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
const OCI_LAYER = 'application/vnd.oci.image.layer.v1.tar';
/** A fixed time: the same files give the same layer, config and digests on every machine. */
const EPOCH = '1970-01-01T00:00:00Z';

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/** A deterministic tar of `root`: sorted names, zero times, root owner, no atime/ctime records. */
async function writeLayerTar(run: CommandRunner, root: string, file: string): Promise<void> {
  await run(
    'tar',
    [
      '--create',
      '--file',
      file,
      '--sort=name',
      '--mtime=@0',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--format=posix',
      '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
      '--directory',
      root,
      '.',
    ],
    { timeoutMs: 300_000 },
  );
}

function imageConfig(config: ImageRuntimeConfig, layerDigest: string): string {
  return JSON.stringify({
    created: EPOCH,
    architecture: process.arch === 'arm64' ? 'arm64' : 'amd64',
    os: 'linux',
    config: {
      User: config.user,
      Env: Object.entries(config.env).map(([key, value]) => `${key}=${value}`),
      Cmd: config.cmd,
      WorkingDir: config.workingDir,
      ...(config.exposedPort === undefined ? {} : { ExposedPorts: { [`${config.exposedPort}/tcp`]: {} } }),
      Labels: config.labels,
    },
    rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
    history: [{ created: EPOCH, created_by: 'sandbox-runtime image builder' }],
  });
}

/**
 * Writes the archive's index files: `oci-layout` + `index.json` (an OCI image layout, read by
 * `ctr images import`, `podman load` and `skopeo`) and `manifest.json` (the `docker save` layout,
 * read by `docker load` and by `k3d image import`). Both name the same blobs, as `docker save` does
 * since Docker 25, so one file serves every tool.
 */
async function writeIndexes(
  dir: string,
  reference: string,
  blobs: { config: string; manifest: string; manifestSize: number; layer: string },
): Promise<void> {
  const tag = reference.slice(reference.lastIndexOf(':') + 1);
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const index = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: OCI_MANIFEST,
        digest: `sha256:${blobs.manifest}`,
        size: blobs.manifestSize,
        annotations: {
          'io.containerd.image.name': reference,
          'org.opencontainers.image.ref.name': tag,
        },
      },
    ],
  };
  await writeFile(join(dir, 'index.json'), JSON.stringify(index));
  const dockerManifest = [
    {
      Config: `blobs/sha256/${blobs.config}`,
      RepoTags: [reference],
      Layers: [`blobs/sha256/${blobs.layer}`],
    },
  ];
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(dockerManifest));
}

/**
 * Packs a root filesystem directory into one image archive at `file`, named `reference`
 * (`localhost/sandbox-<name>:<tag>`): no daemon, no registry, one uncompressed layer.
 */
export async function writeImageArchive(input: {
  run: CommandRunner;
  rootDir: string;
  reference: string;
  config: ImageRuntimeConfig;
  file: string;
}): Promise<ImageArchive> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-archive-'));
  try {
    const blobDir = join(dir, 'blobs', 'sha256');
    await mkdir(blobDir, { recursive: true });
    const layerTmp = join(dir, 'layer.tar');
    await writeLayerTar(input.run, input.rootDir, layerTmp);
    const layer = await fileSha256(layerTmp);
    const layerSize = (await stat(layerTmp)).size;
    await rename(layerTmp, join(blobDir, layer));
    const configJson = imageConfig(input.config, layer);
    const config = sha256(configJson);
    await writeFile(join(blobDir, config), configJson);
    const manifestJson = JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: OCI_CONFIG, digest: `sha256:${config}`, size: Buffer.byteLength(configJson) },
      layers: [{ mediaType: OCI_LAYER, digest: `sha256:${layer}`, size: layerSize }],
    });
    const manifest = sha256(manifestJson);
    await writeFile(join(blobDir, manifest), manifestJson);
    const manifestSize = Buffer.byteLength(manifestJson);
    await writeIndexes(dir, input.reference, { config, manifest, manifestSize, layer });
    await mkdir(dirname(input.file), { recursive: true });
    const members = ['oci-layout', 'index.json', 'manifest.json', 'blobs'];
    await input.run('tar', ['--create', '--file', input.file, '--directory', dir, ...members], {
      timeoutMs: 300_000,
    });
    return {
      file: input.file,
      manifestDigest: `sha256:${manifest}`,
      configDigest: `sha256:${config}`,
      layerSize,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
