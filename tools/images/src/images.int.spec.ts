import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@sandbox/sandbox-local';
import { asRoot, describeRequiring } from '@sandbox/testing';
import { pino } from 'pino';
import { buildImages, type BuiltImage } from './build-images';
import { IMAGE_NAMES } from './catalog';

/** podman and runsc run containers as root here. */
const describeAsRoot = describeRequiring(asRoot);
const logger = pino({ level: 'error' });

let outDir = '';
let built: BuiltImage[] = [];

describeAsRoot('npm run images -- --out DIR --check', () => {
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'images-int-'));
    // Every image: archived, loaded back into podman from the archive, started once under gVisor.
    built = await buildImages({ names: IMAGE_NAMES, outDir, check: true, logger });
    for (const image of built) {
      const size = (image.sizeBytes / 1_000_000).toFixed(1);
      process.stdout.write(`${image.name}: size=${size}MB startup=${image.startupMs}ms\n`);
    }
  }, 900_000);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('builds every catalog image, each answering /healthz under gVisor as a non-root user', async () => {
    expect(built.map((image) => image.name)).toEqual(IMAGE_NAMES);
    for (const image of built) {
      expect(image.tag).toMatch(new RegExp(`^localhost/sandbox-${image.name}:[0-9a-f]{16}$`));
      expect(image.startupMs).toBeGreaterThan(0);
      const { stdout } = await runCommand('podman', [
        'image',
        'inspect',
        '--format={{.Config.User}}',
        image.tag,
      ]);
      expect(stdout.trim()).toBe('65534:65534');
    }
  });

  it.each(['oci-archive', 'docker-archive'])(
    'loads an archive through podman as %s',
    async (transport) => {
      const image = built.find((candidate) => candidate.name === 'example-app');
      const { stdout } = await runCommand('podman', ['pull', '--quiet', `${transport}:${image?.archive}`], {
        timeoutMs: 120_000,
      });
      const id = stdout.trim();
      const { stdout: inspected } = await runCommand('podman', [
        'image',
        'inspect',
        '--format={{.Id}}',
        image?.tag ?? '',
      ]);
      // Both layouts in the one file name the same config blob: the same image ID either way.
      expect(inspected.trim()).toBe(id);
    },
    180_000,
  );

  it('writes a kustomization pinning the overlay to the tags just built', async () => {
    const { stdout } = await runCommand('cat', [join(outDir, 'kustomization.yaml')]);
    for (const image of built) expect(stdout).toContain(`newTag: '${image.tag.split(':')[1]}'`);
  });
});
