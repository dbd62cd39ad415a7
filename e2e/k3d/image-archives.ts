// What `k3d image import`, `docker load` and `ctr images import` read from an image archive, checked
// without any of them: the OCI layout (oci-layout, index.json, blobs) that containerd prefers, and
// the `docker save` layout (manifest.json) that docker reads, naming the same blobs.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Exec } from './exec';

const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const Descriptor = z.object({ mediaType: z.string(), digest: Digest, size: z.int().min(0) });

const OciLayoutSchema = z.object({ imageLayoutVersion: z.literal('1.0.0') });
const IndexSchema = z.object({
  schemaVersion: z.literal(2),
  mediaType: z.literal('application/vnd.oci.image.index.v1+json'),
  manifests: z
    .array(
      Descriptor.extend({
        mediaType: z.literal('application/vnd.oci.image.manifest.v1+json'),
        annotations: z.object({
          'io.containerd.image.name': z.string(),
          'org.opencontainers.image.ref.name': z.string(),
        }),
      }),
    )
    .length(1),
});
const ManifestSchema = z.object({
  schemaVersion: z.literal(2),
  config: Descriptor.extend({ mediaType: z.literal('application/vnd.oci.image.config.v1+json') }),
  layers: z.array(Descriptor).min(1),
});
const ConfigSchema = z.object({
  os: z.literal('linux'),
  architecture: z.enum(['amd64', 'arm64']),
  config: z.object({ User: z.string(), Cmd: z.array(z.string()).min(1) }),
  rootfs: z.object({ type: z.literal('layers'), diff_ids: z.array(Digest) }),
});
const DockerManifestSchema = z
  .array(z.object({ Config: z.string(), RepoTags: z.array(z.string()), Layers: z.array(z.string()) }))
  .length(1);
const RepositoriesSchema = z.record(z.string(), z.record(z.string(), z.string()));

/** One archive, as the importers will name it. */
export interface CheckedArchive {
  file: string;
  reference: string;
  manifestDigest: string;
}

/** Our references: `localhost/sandbox-<name>:<16 hex of content hash>`. */
export const REFERENCE = /^localhost\/sandbox-[a-z0-9-]+:[0-9a-f]{16}$/;

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

const blobPath = (digest: string) => join('blobs', 'sha256', digest.slice('sha256:'.length));

/** The blob a descriptor names exists, with that size and that digest. */
async function checkBlob(dir: string, descriptor: { digest: string; size: number }, what: string) {
  const file = join(dir, blobPath(descriptor.digest));
  const size = (await stat(file).catch(() => undefined))?.size;
  if (size !== descriptor.size)
    throw new Error(`${what} blob ${descriptor.digest}: size ${size}, declared ${descriptor.size}`);
  const actual = await sha256File(file);
  if (actual !== descriptor.digest) throw new Error(`${what} blob ${descriptor.digest} hashes to ${actual}`);
}

const readJson = async (dir: string, path: string) =>
  JSON.parse(await readFile(join(dir, path), 'utf8')) as unknown;

/** Checks an unpacked archive; returns its reference. Throws saying what an importer would refuse. */
export async function checkUnpackedArchive(dir: string): Promise<Omit<CheckedArchive, 'file'>> {
  OciLayoutSchema.parse(await readJson(dir, 'oci-layout'));
  const [entry] = IndexSchema.parse(await readJson(dir, 'index.json')).manifests;
  if (!entry) throw new Error('index.json names no manifest');
  const reference = entry.annotations['io.containerd.image.name'];
  if (!REFERENCE.test(reference))
    throw new Error(`image name ${reference} is not localhost/sandbox-<name>:<hash>`);
  if (entry.annotations['org.opencontainers.image.ref.name'] !== reference.split(':')[1])
    throw new Error('org.opencontainers.image.ref.name is not the tag');
  await checkBlob(dir, entry, 'manifest');
  const manifest = ManifestSchema.parse(await readJson(dir, blobPath(entry.digest)));
  await checkBlob(dir, manifest.config, 'config');
  for (const layer of manifest.layers) await checkBlob(dir, layer, 'layer');
  const config = ConfigSchema.parse(await readJson(dir, blobPath(manifest.config.digest)));
  // Uncompressed layers: each diff ID is the layer's own digest.
  if (JSON.stringify(config.rootfs.diff_ids) !== JSON.stringify(manifest.layers.map((l) => l.digest)))
    throw new Error('config diff_ids do not match the layers');
  if (/^(0|root)(:|$)/.test(config.config.User) || config.config.User === '')
    throw new Error(`image runs as ${config.config.User || 'root'}`);
  const [docker] = DockerManifestSchema.parse(await readJson(dir, 'manifest.json'));
  if (docker?.Config !== blobPath(manifest.config.digest))
    throw new Error('manifest.json names another config');
  if (JSON.stringify(docker.Layers) !== JSON.stringify(manifest.layers.map((l) => blobPath(l.digest))))
    throw new Error('manifest.json names other layers');
  if (JSON.stringify(docker.RepoTags) !== JSON.stringify([reference]))
    throw new Error('manifest.json RepoTags differ');
  await checkRepositories(dir, reference);
  return { reference, manifestDigest: entry.digest };
}

/** `repositories` is the legacy (pre-1.10) name map: docker reads it only without manifest.json. */
async function checkRepositories(dir: string, reference: string): Promise<void> {
  const names = await readdir(dir);
  if (!names.includes('repositories')) return;
  const repositories = RepositoriesSchema.parse(await readJson(dir, 'repositories'));
  const [name, tag] = [reference.slice(0, reference.lastIndexOf(':')), reference.split(':')[1] ?? ''];
  if (repositories[name]?.[tag] === undefined) throw new Error(`repositories does not name ${reference}`);
}

/** Unpacks one archive to a temporary folder (with tar) and checks it. */
export async function checkImageArchive(exec: Exec, file: string): Promise<CheckedArchive> {
  const dir = await mkdtemp(join(tmpdir(), 'archive-check-'));
  try {
    await exec('tar', ['--extract', '--file', file, '--directory', dir], { timeoutMs: 300_000 });
    const members = (await readdir(dir)).sort();
    const unknown = members.filter(
      (m) => !['blobs', 'index.json', 'manifest.json', 'oci-layout', 'repositories'].includes(m),
    );
    if (unknown.length > 0) throw new Error(`unexpected members ${unknown.join(', ')}`);
    return { file, ...(await checkUnpackedArchive(dir)) };
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
