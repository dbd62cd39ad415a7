import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  containerImages,
  ensureKubeBinaries,
  OVERLAYS,
  overlayDir,
  renderKustomization,
} from '@sandbox/kube-harness';
import { IMAGE_CATALOG } from './catalog';
import { splitReference, writePinKustomization } from './pin-kustomization';

/** Images deploy/ names that are not ours: Redis, and Node's release in production. */
const EXTERNAL = ['docker.io/library/redis', 'docker.io/livepeer/go-livepeer'];
const OURS = /^localhost\/sandbox-(.+)$/;
/** kustomize is built with Go by the kube harness. */
const describeWithGo = spawnSync('go', ['version']).status === 0 ? describe : describe.skip;

let kustomize = '';
const rendered: Record<string, KubernetesObject[]> = {};

describeWithGo('the images deploy/ names', () => {
  beforeAll(async () => {
    kustomize = (await ensureKubeBinaries()).kustomize;
    for (const overlay of OVERLAYS)
      rendered[overlay] = await renderKustomization(kustomize, overlayDir(overlay));
  }, 30 * 60_000);

  it.each(OVERLAYS)('%s: names only images npm run images builds, besides the external ones', (overlay) => {
    const images = containerImages(rendered[overlay] ?? []);
    const ours = images.filter((image) => OURS.test(image));
    for (const image of ours) expect(IMAGE_CATALOG).toHaveProperty([OURS.exec(image)?.[1] ?? '']);
    const external = images.filter((image) => !OURS.test(image)).map((image) => splitReference(image).name);
    expect(external.every((name) => EXTERNAL.includes(name))).toBe(true);
    for (const service of [
      'instance-manager',
      'adapter',
      'redemption-handoff',
      'dashboard',
      'drain-controller',
    ])
      expect(ours).toContain(`localhost/sandbox-${service}`);
  });

  it('runs the simulators in k3d and neither in production', () => {
    expect(containerImages(rendered['k3d'] ?? [])).toEqual(
      expect.arrayContaining(['localhost/sandbox-node-sim', 'localhost/sandbox-redeemer-sim']),
    );
    expect(containerImages(rendered['production'] ?? []).filter((image) => image.includes('-sim'))).toEqual(
      [],
    );
  });

  it('pins every image of an overlay to the tag built, through the kustomization --out writes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pin-spec-'));
    try {
      const tags = Object.keys(IMAGE_CATALOG).map((name) => `localhost/sandbox-${name}:0123456789abcdef`);
      await writePinKustomization(dir, 'k3d', tags);
      const pinned = containerImages(await renderKustomization(kustomize, dir));
      expect(
        pinned.filter((image) => OURS.test(image)).every((image) => image.endsWith(':0123456789abcdef')),
      ).toBe(true);
      expect(pinned.filter((image) => OURS.test(image))).toHaveLength(8);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
