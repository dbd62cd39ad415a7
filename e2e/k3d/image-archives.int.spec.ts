// `npm run images -- --out DIR` as the k3d suite runs it: every archive in the layouts k3d, docker
// and ctr read, the pinned k3d overlay naming exactly the images built, and (as root, with Debian's
// containerd) one archive imported by `ctr images import` and listed by the CRI under its name.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureKubeBinaries, overlayDir, renderKustomization, startLocalNode } from '@sandbox/kube-harness';
import { ensureRunscBuild } from '@sandbox/sandbox-local';
import { asRoot, commandWorks, describeRequiring, goOnPath, itRequiring } from '@sandbox/testing';
import { pino } from 'pino';
import { exec } from './exec';
import { checkUnpackedArchive, REFERENCE, type CheckedArchive } from './image-archives';
import { buildImageArchives, imagesWithoutArchive, renderedImages } from './install';

const describeWithGo = describeRequiring(goOnPath());
const itAsRootWithContainerd = itRequiring(
  asRoot,
  commandWorks('containerd', ['--version'], "Debian's containerd"),
);

/** The images the k3d overlay runs from this repository, sorted. */
const INSTALLED = [
  'adapter',
  'dashboard',
  'drain-controller',
  'instance-manager',
  'node-sim',
  'redeemer-sim',
  'redemption-handoff',
];

let outDir = '';
let archives: CheckedArchive[] = [];

describeWithGo('the image archives the k3d suite imports', () => {
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'k3d-archives-'));
    archives = await buildImageArchives(exec, outDir, () => undefined);
  }, 30 * 60_000);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('holds one checked archive per image, named localhost/sandbox-<name>:<hash>', () => {
    expect(archives.length).toBeGreaterThanOrEqual(10);
    for (const archive of archives) {
      expect(archive.reference).toMatch(REFERENCE);
      expect(archive.file).toBe(
        join(outDir, `${archive.reference.split(':')[0]?.replace('localhost/', '')}.tar`),
      );
    }
    expect(archives.map((a) => a.reference.split(':')[0])).toContain('localhost/sandbox-example-app');
  });

  it(
    'pins the k3d overlay to exactly the images built; the unpinned overlay names none of them',
    async () => {
      const { kustomize } = await ensureKubeBinaries();
      const pinned = await renderKustomization(kustomize, outDir);
      expect(imagesWithoutArchive(pinned, archives)).toEqual([]);
      // The machine's install: its services and the two simulators k3d runs; the verifier is the platform's.
      const names = (images: string[]) => images.map((image) => image.split(':')[0]).sort();
      const local = renderedImages(pinned).filter((image) => image.startsWith('localhost/'));
      expect(names(local)).toEqual(INSTALLED.map((name) => `localhost/sandbox-${name}`));
      const unpinned = await renderKustomization(kustomize, overlayDir('k3d'));
      expect(imagesWithoutArchive(unpinned, archives)).toHaveLength(INSTALLED.length);
    },
    30 * 60_000,
  );

  it('refuses an archive an importer would refuse or name otherwise', async () => {
    const example = archives.find((a) => a.reference.startsWith('localhost/sandbox-example-app:'));
    const dir = await mkdtemp(join(tmpdir(), 'k3d-archive-tamper-'));
    try {
      await exec('tar', ['--extract', '--file', example?.file ?? '', '--directory', dir], {
        timeoutMs: 300_000,
      });
      expect((await checkUnpackedArchive(dir)).reference).toBe(example?.reference);
      const tamper = async (file: string, edit: (text: string) => string, message: string) => {
        const original = await readFile(join(dir, file), 'utf8');
        await writeFile(join(dir, file), edit(original));
        await expect(checkUnpackedArchive(dir)).rejects.toThrow(message);
        await writeFile(join(dir, file), original);
      };
      await tamper(
        'manifest.json',
        (t) => t.replace(/"RepoTags":\["[^"]+"\]/, '"RepoTags":["localhost/other:1"]'),
        'RepoTags',
      );
      await tamper(
        'index.json',
        (t) => t.replace('localhost/sandbox-example-app', 'docker.io/library/example'),
        'is not localhost',
      );
      await tamper('oci-layout', () => '{"imageLayoutVersion":"2.0.0"}', 'imageLayoutVersion');
      const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as {
        manifests: { digest: string }[];
      };
      const manifest = `blobs/sha256/${index.manifests[0]?.digest.slice(7)}`;
      await tamper(manifest, (t) => t.replace('"schemaVersion":2', '"schemaVersion":2 '), 'size');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  itAsRootWithContainerd(
    'is imported by ctr and listed by the CRI under the name the pods use',
    async () => {
      const logger = pino({ level: 'warn' });
      const node = await startLocalNode({ runscPath: (await ensureRunscBuild({ logger })).path, logger });
      try {
        const example = archives.find((a) => a.reference.startsWith('localhost/sandbox-example-app:'));
        await node.importImage(example?.file ?? '');
        const listed = JSON.parse((await node.crictl(['images', '--output', 'json'])).stdout) as {
          images: { repoTags: string[] }[];
        };
        expect(listed.images.flatMap((image) => image.repoTags)).toContain(example?.reference);
      } finally {
        await node.stop();
      }
    },
    600_000,
  );
});
