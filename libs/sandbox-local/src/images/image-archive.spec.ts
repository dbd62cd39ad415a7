import { afterAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../command-runner';
import { writeImageArchive, type ImageRuntimeConfig } from './image-archive';
import { writeLayout } from './rootfs-layout';

const dirs: string[] = [];
const REFERENCE = 'localhost/sandbox-spec:0123456789abcdef';
const CONFIG: ImageRuntimeConfig = {
  cmd: ['/usr/local/bin/node', '/app/main.mjs'],
  env: { PORT: '8080' },
  workingDir: '/app',
  user: '65534:65534',
  exposedPort: 8080,
  labels: { 'sandbox.image.name': 'spec' },
};

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function archiveOf(content: string): Promise<{ dir: string; digest: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'archive-spec-'));
  dirs.push(dir);
  const root = join(dir, 'rootfs');
  await writeLayout(root, { files: [{ path: '/app/main.mjs', mode: 0o644, content }], dirs: [] });
  const file = join(dir, 'image.tar');
  const written = await writeImageArchive({
    run: runCommand,
    rootDir: root,
    reference: REFERENCE,
    config: CONFIG,
    file,
  });
  const out = join(dir, 'unpacked');
  await runCommand('mkdir', ['-p', out]);
  await runCommand('tar', ['--extract', '--file', file, '--directory', out]);
  return { dir: out, digest: written.manifestDigest };
}

const json = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
const sha256Of = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
const blob = (dir: string, digest: string) => join(dir, 'blobs', 'sha256', digest.replace(/^sha256:/, ''));

describe('writeImageArchive', () => {
  it('writes an OCI image layout whose every digest and size is that of its blob', async () => {
    const { dir } = await archiveOf('console.log(1)');
    expect(await json(join(dir, 'oci-layout'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = (await json(join(dir, 'index.json'))) as {
      manifests: { digest: string; size: number; annotations: Record<string, string> }[];
    };
    expect(index.manifests).toHaveLength(1);
    const [entry] = index.manifests;
    // ctr images import names the image from this annotation; OCI tools from ref.name.
    expect(entry?.annotations).toEqual({
      'io.containerd.image.name': REFERENCE,
      'org.opencontainers.image.ref.name': '0123456789abcdef',
    });
    const manifestPath = blob(dir, entry?.digest ?? '');
    expect(`sha256:${await sha256Of(manifestPath)}`).toBe(entry?.digest);
    expect((await stat(manifestPath)).size).toBe(entry?.size);
    const manifest = (await json(manifestPath)) as {
      config: { digest: string; size: number; mediaType: string };
      layers: { digest: string; size: number; mediaType: string }[];
    };
    expect(manifest.config.mediaType).toBe('application/vnd.oci.image.config.v1+json');
    for (const part of [manifest.config, ...manifest.layers]) {
      expect(`sha256:${await sha256Of(blob(dir, part.digest))}`).toBe(part.digest);
      expect((await stat(blob(dir, part.digest))).size).toBe(part.size);
    }
    const config = (await json(blob(dir, manifest.config.digest))) as {
      config: { User: string; Cmd: string[] };
      rootfs: { diff_ids: string[] };
    };
    // Uncompressed layer: its diff ID is its own digest.
    expect(config.rootfs.diff_ids).toEqual(manifest.layers.map((layer) => layer.digest));
    expect(config.config).toMatchObject({ User: '65534:65534', Cmd: CONFIG.cmd });
  });

  it('writes the docker save manifest naming the same config and layer blobs', async () => {
    const { dir } = await archiveOf('console.log(2)');
    const [entry] = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
      Config: string;
      RepoTags: string[];
      Layers: string[];
    }[];
    expect(entry?.RepoTags).toEqual([REFERENCE]);
    const blobs = await readdir(join(dir, 'blobs', 'sha256'));
    for (const path of [entry?.Config ?? '', ...(entry?.Layers ?? [])]) {
      expect(path).toMatch(/^blobs\/sha256\/[0-9a-f]{64}$/);
      expect(blobs).toContain(path.split('/').pop());
      expect(await sha256Of(join(dir, path))).toBe(path.split('/').pop());
    }
  });

  it('gives the same files the same digest, and other files another', async () => {
    const first = await archiveOf('same');
    expect((await archiveOf('same')).digest).toBe(first.digest);
    expect((await archiveOf('other')).digest).not.toBe(first.digest);
  });
});
