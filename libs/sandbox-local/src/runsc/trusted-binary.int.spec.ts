import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeAsRoot } from '../test-support/describe-as-root.fixture';
import { ensureRunscBuild, gvisorVersion, RUNSC_MODULE_DIR } from './runsc-build';
import { findCachedRunsc } from './runsc-cache';
import { assertTrustedBinary, UntrustedBinaryError } from './trusted-binary';

// Root only: ownership can be given away by root alone, and the check guards what root executes.
describeAsRoot('assertTrustedBinary, as root', () => {
  let base: string;
  let dir: string;
  let binary: string;
  beforeEach(async () => {
    // Under /tmp: a sticky, world-writable folder above the binary's own is accepted.
    base = await mkdtemp(join(tmpdir(), 'trusted-binary-'));
    dir = join(base, 'runsc', 'v1');
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(base, 0o755);
    binary = join(dir, 'runsc');
    await writeFile(binary, '#!/bin/true\n', { mode: 0o755 });
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('accepts a root-owned binary in root-owned folders writable by root alone', async () => {
    await expect(assertTrustedBinary(binary, 0)).resolves.toBeUndefined();
  });

  it.each([
    ['the binary owned by another user', () => chown(binary, 65534, 65534), 'runsc is owned by uid 65534'],
    ['the binary writable by its group', () => chmod(binary, 0o775), 'runsc is owned by uid 0 with mode 775'],
    ['its folder writable by others', () => chmod(dir, 0o777), 'v1 is owned by uid 0 with mode 777'],
    [
      'its folder sticky and writable by others',
      () => chmod(dir, 0o1777),
      'v1 is owned by uid 0 with mode 1777',
    ],
    [
      'a folder above owned by another user',
      () => chown(join(base, 'runsc'), 65534, 65534),
      'runsc is owned by uid 65534',
    ],
  ])('refuses %s', async (_what, spoil, reason) => {
    await spoil();
    const refused = assertTrustedBinary(binary, 0);
    await expect(refused).rejects.toBeInstanceOf(UntrustedBinaryError);
    await expect(refused).rejects.toThrow(reason);
  });

  it('keeps ensureRunscBuild and findCachedRunsc from handing out a cached runsc another user owns', async () => {
    const version = gvisorVersion(await readFile(join(RUNSC_MODULE_DIR, 'go.mod'), 'utf8'));
    const cached = join(base, 'cache', 'runsc', version);
    await mkdir(cached, { recursive: true, mode: 0o755 });
    await chmod(join(base, 'cache'), 0o755);
    await writeFile(join(cached, 'runsc'), '#!/bin/true\n', { mode: 0o755 });
    await chown(join(cached, 'runsc'), 65534, 65534);
    const options = { cacheDir: join(base, 'cache') };
    await expect(ensureRunscBuild(options)).rejects.toBeInstanceOf(UntrustedBinaryError);
    await expect(findCachedRunsc(options)).rejects.toBeInstanceOf(UntrustedBinaryError);
  });

  it('checks nothing for a process that is not root', async () => {
    await chmod(dir, 0o777);
    await expect(assertTrustedBinary(binary, 1000)).resolves.toBeUndefined();
  });
});
