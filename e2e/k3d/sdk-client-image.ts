// The client pod's image: a Python interpreter with the official SDK (livepeer-gateway) and its
// dependencies already installed, built on this host from PyPI, so the pod needs no registry and no
// network of its own (on the local node pods have no route out; on k3d it saves a pip run per pod).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, realpath, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix, relative } from 'node:path';
import { directoryAssets, runCommand, type RootfsFile } from '@sandbox/sandbox-local';
import {
  exportLayoutImage,
  sharedLibraries,
  type LayoutImage,
  type RootfsLayout,
} from '@sandbox/sandbox-local/testing';
import { findPython, SDK_PACKAGE } from '@sandbox/testing';

/** Where the client script is mounted (from a ConfigMap) inside the pod. */
export const CLIENT_SCRIPT_DIR = '/client';
const IMAGE_PYTHON = '/usr/local/bin/python3';
const IMAGE_SITE = '/opt/sdk';

interface PythonFacts {
  executable: string;
  version: string;
  stdlib: string;
}

/** Stdlib parts a client never imports (and the static library, the largest file of a prefix). */
const STDLIB_SKIPPED =
  /^(site-packages|test|idlelib|tkinter|turtledemo|ensurepip|lib2to3|config-[^/]+)(\/|$)/;

async function pythonFacts(python: string): Promise<PythonFacts> {
  const script =
    'import json, sys, sysconfig; print(json.dumps({"executable": sys.executable, ' +
    '"version": f"{sys.version_info[0]}.{sys.version_info[1]}", "stdlib": sysconfig.get_paths()["stdlib"]}))';
  const { stdout } = await runCommand(python, ['-c', script]);
  const facts = JSON.parse(stdout) as PythonFacts;
  return { ...facts, executable: await realpath(facts.executable) };
}

/** The SDK and its dependencies installed for `python` into a cache folder (once per interpreter and SDK). */
async function ensureSdkSite(python: string, facts: PythonFacts, exact: boolean): Promise<string> {
  const key = createHash('sha256')
    .update(`${facts.executable}\0${facts.version}\0${SDK_PACKAGE}`)
    .digest('hex');
  const dir = join(homedir(), '.cache', 'sandbox-runtime', 'sdk-client', key.slice(0, 16));
  const site = join(dir, 'site-packages');
  if (existsSync(site)) return site;
  const partial = `${site}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const pip = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', partial];
  const long = { timeoutMs: 900_000 };
  if (exact) await runCommand(python, [...pip, SDK_PACKAGE], long);
  else {
    // The SDK declares Python >= 3.12; on another 3.x its dependencies are installed first, then it alone.
    await runCommand(python, [...pip, 'aiohttp', 'av', 'grpcio', 'protobuf'], long);
    await runCommand(python, [...pip, '--no-deps', '--ignore-requires-python', SDK_PACKAGE], long);
  }
  await rename(partial, site);
  return site;
}

const isSharedObject = (path: string) => /\.so(\.[0-9.]+)?$/.test(path);

/** Files of `hostDir` placed under `imageDir`, shared objects executable. */
async function tree(hostDir: string, imageDir: string, skip?: RegExp): Promise<RootfsFile[]> {
  const files = await directoryAssets(hostDir, imageDir);
  return files
    .filter((file) => !skip || !skip.test(posix.relative(imageDir, file.path)))
    .map((file) => (isSharedObject(file.path) ? { ...file, mode: 0o755 } : file));
}

/** The host libraries the interpreter and every extension module link, at the paths the loader uses. */
async function systemLibraries(binaries: readonly string[], ownDirs: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const binary of binaries)
    for (const library of await sharedLibraries(runCommand, binary))
      if (!ownDirs.some((dir) => !relative(dir, library).startsWith('..'))) found.add(library);
  return [...found].sort();
}

/** The image's files: interpreter, stdlib, the SDK's site folder, the libraries all of them link. */
async function clientLayout(facts: PythonFacts, site: string): Promise<RootfsLayout> {
  const stdlibImage = `/usr/local/lib/python${facts.version}`;
  const stdlib = await tree(facts.stdlib, stdlibImage, STDLIB_SKIPPED);
  const sdk = await tree(site, IMAGE_SITE);
  const extensions = [...stdlib, ...sdk].flatMap((file) =>
    file.source && isSharedObject(file.path) ? [file.source] : [],
  );
  const libraries = await systemLibraries([facts.executable, ...extensions], [facts.stdlib, site]);
  return {
    files: [
      { path: IMAGE_PYTHON, mode: 0o755, source: facts.executable },
      ...stdlib,
      ...sdk,
      ...libraries.map((library) => ({ path: library, mode: 0o755, source: library })),
      {
        path: '/etc/passwd',
        mode: 0o644,
        content: 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n',
      },
      { path: '/etc/group', mode: 0o644, content: 'nogroup:x:65534:\n' },
    ],
    dirs: [
      ...['/etc', '/proc', '/sys', '/dev', '/run', CLIENT_SCRIPT_DIR].map((path) => ({ path, mode: 0o755 })),
      { path: '/tmp', mode: 0o1777 },
    ],
  };
}

/** Builds `localhost/sandbox-sdk-client:<hash>` into `file` (an archive every importer reads). */
export async function exportSdkClientImage(file: string): Promise<LayoutImage> {
  const { python, exact312 } = findPython();
  const facts = await pythonFacts(python);
  const site = await ensureSdkSite(python, facts, exact312);
  return exportLayoutImage({
    name: 'sdk-client',
    layout: await clientLayout(facts, site),
    file,
    config: {
      cmd: [IMAGE_PYTHON, `${CLIENT_SCRIPT_DIR}/sdk_client.py`],
      env: {
        PYTHONHOME: '/usr/local',
        PYTHONPATH: IMAGE_SITE,
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONUNBUFFERED: '1',
      },
      workingDir: '/tmp',
      user: '65534:65534',
      labels: { 'org.opencontainers.image.description': `Python ${facts.version} with ${SDK_PACKAGE}` },
    },
  });
}

export { IMAGE_PYTHON };
