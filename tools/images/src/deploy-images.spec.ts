import { beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1Container } from '@kubernetes/client-node';
import {
  containerImages,
  ensureKubeBinaries,
  OVERLAYS,
  overlayDir,
  renderKustomization,
} from '@sandbox/kube-harness';
import { IMAGE_APP_PATH, IMAGE_NODE_PATH } from '@sandbox/sandbox-local';
import { describeRequiring, goOnPath } from '@sandbox/testing';
import { IMAGE_CATALOG } from './catalog';
import { DEPLOY_DIR, splitReference, writePinKustomization } from './pin-kustomization';

/** Images deploy/ names that are not ours: Redis, and Node's release in production. */
const EXTERNAL = ['docker.io/library/redis', 'docker.io/livepeer/go-livepeer'];
const OURS = /^localhost\/sandbox-(.+)$/;
/** kustomize is built with Go by the kube harness. */
const describeWithGo = describeRequiring(goOnPath());

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

  it.each(OVERLAYS)('%s: starts Node and the bundle in every container of our images', (overlay) => {
    // Our images set Cmd [node, bundle] and no Entrypoint. The command line is the container's
    // `command` (plus `args`), else `args` alone (Entrypoint + args), else the Cmd.
    const IMAGE_CMD = [IMAGE_NODE_PATH, IMAGE_APP_PATH];
    for (const object of rendered[overlay] ?? []) {
      const pod = (object as { spec?: { template?: { spec?: { containers?: V1Container[] } } } }).spec;
      for (const container of pod?.template?.spec?.containers ?? []) {
        if (!OURS.test(container.image ?? '')) continue;
        const argv = container.command
          ? [...container.command, ...(container.args ?? [])]
          : (container.args ?? IMAGE_CMD);
        expect({ container: container.name, starts: argv.slice(0, 2) }).toEqual({
          container: container.name,
          starts: IMAGE_CMD,
        });
      }
    }
  });

  it('platform: runs the verifier image, pinned like the overlays', async () => {
    const platform = containerImages(await renderKustomization(kustomize, join(DEPLOY_DIR, 'platform')));
    expect(platform.filter((image) => OURS.test(image))).toEqual(['localhost/sandbox-verifier']);
    const dir = await mkdtemp(join(tmpdir(), 'pin-platform-'));
    try {
      await writePinKustomization(dir, 'platform', ['localhost/sandbox-verifier:0123456789abcdef']);
      expect(containerImages(await renderKustomization(kustomize, dir))).toContain(
        'localhost/sandbox-verifier:0123456789abcdef',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
      // Every service image but the verifier's (only deploy/platform runs it) and both simulators.
      expect(pinned.filter((image) => OURS.test(image))).toHaveLength(7);
      expect(pinned.some((image) => image.includes('sandbox-verifier'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
