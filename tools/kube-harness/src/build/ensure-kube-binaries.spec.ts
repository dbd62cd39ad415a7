import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunner } from '@sandbox/sandbox-local';
import { ensureKubeBinaries, readKubeVersions } from './ensure-kube-binaries';

let cacheDir = '';
beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'kube-build-spec-'));
});
afterEach(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

/** A `go build -o dir/ tool` stand-in that writes the binaries go would name, and records its arguments. */
function fakeGo(outputs = ['kube-apiserver', 'server', 'kustomize']) {
  const calls: string[][] = [];
  const run: CommandRunner = async (command, args) => {
    calls.push([command, ...args]);
    const outDir = args[args.indexOf('-o') + 1] ?? '';
    for (const name of outputs) await writeFile(join(outDir, name), 'binary');
    return { stdout: '', stderr: '', exitCode: 0 };
  };
  return { run, calls };
}

describe('ensureKubeBinaries', () => {
  it('builds the control-plane tools of the module at low priority into a directory keyed by go.sum', async () => {
    const go = fakeGo();
    const result = await ensureKubeBinaries({ cacheDir, run: go.run });
    const { buildKey, kubernetes } = await readKubeVersions();
    expect(result.built).toBe(true);
    expect(result.dir).toBe(join(cacheDir, 'kube', buildKey));
    expect((await readdir(result.dir)).sort()).toEqual(['etcd', 'kube-apiserver', 'kustomize']);
    expect(result.etcd).toBe(join(result.dir, 'etcd'));
    const [call] = go.calls;
    expect(call?.slice(0, 5)).toEqual(['env', 'CGO_ENABLED=0', 'nice', '-n', '19']);
    expect(call).toEqual(
      expect.arrayContaining(['build', '-trimpath', '-mod=readonly', 'k8s.io/kubernetes/cmd/kube-apiserver']),
    );
    expect(call?.find((arg) => arg.startsWith('-ldflags='))).toContain(`gitVersion=${kubernetes}`);
  });

  it('reuses a cached build without running go', async () => {
    await ensureKubeBinaries({ cacheDir, run: fakeGo().run });
    const again = fakeGo();
    const result = await ensureKubeBinaries({ cacheDir, run: again.run });
    expect(result.built).toBe(false);
    expect(again.calls).toEqual([]);
  });

  it('rebuilds over an incomplete cache entry', async () => {
    const { buildKey } = await readKubeVersions();
    await mkdir(join(cacheDir, 'kube', buildKey), { recursive: true });
    await writeFile(join(cacheDir, 'kube', buildKey, 'etcd'), 'left from an older layout');
    const go = fakeGo();
    expect((await ensureKubeBinaries({ cacheDir, run: go.run })).built).toBe(true);
    expect(go.calls).toHaveLength(1);
  });

  it('fails when go produced no etcd, and leaves nothing behind in the cache', async () => {
    await expect(
      ensureKubeBinaries({ cacheDir, run: fakeGo(['kube-apiserver', 'kustomize']).run }),
    ).rejects.toThrow('did not produce server');
    expect(await readdir(join(cacheDir, 'kube'))).toEqual([]);
  });

  it('leaves nothing behind when the build fails', async () => {
    const failing: CommandRunner = async () => {
      throw new Error('go: module lookup disabled');
    };
    await expect(ensureKubeBinaries({ cacheDir, run: failing })).rejects.toThrow('module lookup disabled');
    expect(await readdir(join(cacheDir, 'kube'))).toEqual([]);
  });
});
