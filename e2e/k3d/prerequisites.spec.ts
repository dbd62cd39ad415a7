import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Exec, ExecResult } from './exec';
import { downloadK3d, findK3d } from './k3d-binary';
import { K3D } from './pins';
import { checkPrerequisites } from './prerequisites';
import { REPO_ROOT } from './node-image';

const NO_DAEMON =
  'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';

/** An exec answering each command from a table (`null` code: not on PATH). */
function scripted(answers: Record<string, ExecResult>): Exec {
  return async (command) => answers[command] ?? { code: null, stdout: '', stderr: '' };
}
const ok: ExecResult = { code: 0, stdout: 'fine\n', stderr: '' };

describe('checkPrerequisites', () => {
  it('skips without a Docker engine, quoting what docker said, before asking for anything else', async () => {
    const findK3d = async () => ({ path: 'k3d' });
    const result = await checkPrerequisites({
      exec: scripted({ docker: { code: 1, stdout: '', stderr: `${NO_DAEMON}\nmore` }, kubectl: ok }),
      findK3d,
    });
    expect(result).toEqual({ ready: false, reason: `no Docker engine (${NO_DAEMON})` });
  });

  it('skips without the docker CLI, and then without kubectl or k3d', async () => {
    const missingK3d = async () => ({ missing: 'not on PATH; downloading failed' });
    expect(await checkPrerequisites({ exec: scripted({}), findK3d: missingK3d })).toEqual({
      ready: false,
      reason: 'no Docker engine (docker is not on PATH)',
    });
    expect(await checkPrerequisites({ exec: scripted({ docker: ok }), findK3d: missingK3d })).toEqual({
      ready: false,
      reason: 'no kubectl (kubectl is not on PATH)',
    });
    expect(
      await checkPrerequisites({ exec: scripted({ docker: ok, kubectl: ok }), findK3d: missingK3d }),
    ).toEqual({
      ready: false,
      reason: 'no k3d (not on PATH; downloading failed)',
    });
  });

  it('is ready with every tool', async () => {
    const result = await checkPrerequisites({
      exec: scripted({ docker: ok, kubectl: ok }),
      findK3d: async () => ({ path: '/cache/k3d' }),
    });
    expect(result).toEqual({
      ready: true,
      tools: { docker: 'docker', kubectl: 'kubectl', k3d: '/cache/k3d' },
    });
  });
});

describe('the pinned k3d download', () => {
  const binary = Buffer.from('#!/bin/sh\necho k3d\n');
  const fetchOf = (body: Buffer) => (async () => new Response(body)) as unknown as typeof fetch;

  it('keeps a download only when its sha256 is the pinned one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k3d-pin-'));
    try {
      const sha = createHash('sha256').update(binary).digest('hex');
      expect(await downloadK3d(join(dir, 'k3d'), 'amd64', fetchOf(binary), { amd64: sha })).toBeUndefined();
      expect(await readFile(join(dir, 'k3d'))).toEqual(binary);
      expect((await stat(join(dir, 'k3d'))).mode & 0o111).toBe(0o111);
      const wrong = await downloadK3d(join(dir, 'other'), 'amd64', fetchOf(binary));
      expect(wrong).toContain(`pinned ${K3D.sha256['amd64']}`);
      await expect(stat(join(dir, 'other'))).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says why when the network does not allow the download', async () => {
    const offline = (async () => {
      throw new Error('getaddrinfo ENOTFOUND github.com');
    }) as unknown as typeof fetch;
    const dir = await mkdtemp(join(tmpdir(), 'k3d-pin-'));
    try {
      const found = await findK3d({
        exec: scripted({}),
        cachePath: join(dir, 'k3d'),
        fetch: offline,
        arch: 'amd64',
      });
      expect(found).toEqual({
        missing: `not on PATH; downloading k3d ${K3D.version} failed (getaddrinfo ENOTFOUND github.com); put k3d on PATH`,
      });
      expect(await findK3d({ exec: scripted({ k3d: ok }), fetch: offline })).toEqual({ path: 'k3d' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run e2e:k3d without a Docker engine', () => {
  it('prints "skipped: no Docker engine (…)", claims no pass and exits 0', async () => {
    // A docker CLI whose engine is down, first on PATH: the suite must stop at the first check.
    const bin = await mkdtemp(join(tmpdir(), 'no-engine-'));
    try {
      await writeFile(join(bin, 'docker'), `#!/bin/sh\necho '${NO_DAEMON}' >&2\nexit 1\n`);
      await chmod(join(bin, 'docker'), 0o755);
      const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'e2e', 'k3d', 'main.ts')], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { PATH: `${bin}:/usr/bin:/bin`, HOME: bin },
        timeout: 60_000,
      });
      expect(run.stdout).toContain(`[e2e:k3d] skipped: no Docker engine (${NO_DAEMON}); nothing was checked`);
      expect(run.stdout).not.toMatch(/passed|ok {3}/);
      expect(run.status).toBe(0);
      // Hosted CI, where Docker is the point, asks for a failure instead of a skip.
      const required = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(REPO_ROOT, 'e2e', 'k3d', 'main.ts'), '--require'],
        {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          env: { PATH: `${bin}:/usr/bin:/bin`, HOME: bin },
          timeout: 60_000,
        },
      );
      expect(required.stdout).toContain(
        `[e2e:k3d] failed: no Docker engine (${NO_DAEMON}); nothing was checked`,
      );
      expect(required.status).toBe(1);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});
