import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IMAGE_CATALOG } from './catalog';

const APPS_DIR = join(import.meta.dirname, '..', '..', '..', 'apps');

describe('IMAGE_CATALOG', () => {
  it('points every image at an entry file that exists', () => {
    for (const image of Object.values(IMAGE_CATALOG)) expect(existsSync(image.entryFile)).toBe(true);
  });

  it('has an image for every service (the eval responder included), the example app and the simulators', () => {
    const services = readdirSync(APPS_DIR).filter((name) => {
      const main = join(APPS_DIR, name, 'src', 'main.ts');
      return existsSync(main) && readFileSync(main, 'utf8').includes('startService(');
    });
    // A new service under apps/ needs its one catalog entry (and deploy/ its Deployment).
    const expected = [...services, 'example-app', 'node-sim', 'redeemer-sim'];
    expect(Object.keys(IMAGE_CATALOG).sort()).toEqual(expected.sort());
  });

  it('ships bull-board UI assets with the dashboard, where its require.resolve looks', async () => {
    const assets = (await IMAGE_CATALOG['dashboard']?.assets?.()) ?? [];
    const paths = assets.map((asset) => asset.path);
    expect(paths).toContain('/app/node_modules/@bull-board/ui/package.json');
    expect(paths).toContain('/app/node_modules/@bull-board/ui/dist/index.ejs');
    expect(paths.some((path) => path.startsWith('/app/node_modules/@bull-board/ui/dist/static/'))).toBe(true);
    for (const asset of assets) expect(existsSync(asset.source ?? '')).toBe(true);
    expect(new Set(assets.map((asset) => dirname(asset.path))).size).toBeGreaterThan(1);
  });

  it('lists the secret files each image needs to start, by their config names', () => {
    const tokens = ['ADMIN_TOKEN_FILE', 'READ_TOKEN_FILE'];
    expect(IMAGE_CATALOG['adapter']?.start.secretFiles).toEqual([...tokens, 'BOOTSTRAP_SECRET_FILE']);
    expect(IMAGE_CATALOG['dashboard']?.start.secretFiles).toEqual(tokens);
    expect(IMAGE_CATALOG['redemption-handoff']?.start.secretFiles).toEqual([
      ...tokens,
      'INTAKE_SECRET_FILE',
      'REDEEMER_SECRET_FILE',
    ]);
  });
});
