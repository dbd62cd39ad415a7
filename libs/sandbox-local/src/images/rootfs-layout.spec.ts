import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layoutDigest, nodeAppLayout, writeLayout } from './rootfs-layout';

const layout = (bundle: string) =>
  nodeAppLayout({ nodeBinary: '/dev/null', libraries: [], appBundle: bundle });
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('rootfs layout', () => {
  it('has a digest that follows content, modes and image config, and nothing else', async () => {
    const base = await layoutDigest(layout('app'), 'config');
    expect(await layoutDigest(layout('app'), 'config')).toBe(base);
    expect(await layoutDigest(layout('app2'), 'config')).not.toBe(base);
    expect(await layoutDigest(layout('app'), 'other config')).not.toBe(base);
    const changedMode = layout('app');
    changedMode.files[0] = { ...changedMode.files[0], path: '/usr/local/bin/node', mode: 0o700 };
    expect(await layoutDigest(changedMode, 'config')).not.toBe(base);
  });

  it('writes files and directories with explicit modes, readable by anyone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rootfs-spec-'));
    dirs.push(root);
    await writeLayout(join(root, 'fs'), layout('console.log(1)'));
    expect((await stat(join(root, 'fs'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(root, 'fs', 'usr', 'local', 'bin'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(root, 'fs', 'usr', 'local', 'bin', 'node'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(root, 'fs', 'app', 'main.mjs'))).mode & 0o777).toBe(0o644);
    expect((await stat(join(root, 'fs', 'tmp'))).mode & 0o7777).toBe(0o1777);
  });
});
