// The Redis the cluster runs where nothing is pulled: Debian's redis-server and redis-cli, with the
// shell, cat and grep its readiness probe runs (and stat) and every library they link, as a one-layer image
// named for the overlay (`localhost/sandbox-redis:<content hash>`). The real Redis, packaged here.
import { realpath } from 'node:fs/promises';
import { runCommand, type RootfsFile } from '@sandbox/sandbox-local';
import { exportLayoutImage, sharedLibraries, type LayoutImage } from '@sandbox/sandbox-local/testing';

/** The image base/ names for Redis, which the pinned overlay maps to the one built here. */
export const UPSTREAM_REDIS_IMAGE = 'docker.io/library/redis';

/** Programs the StatefulSet and its probe run, by the path they get in the image. */
const PROGRAMS: Readonly<Record<string, string>> = {
  '/usr/bin/redis-server': 'redis-server',
  '/usr/bin/redis-cli': 'redis-cli',
  '/bin/sh': 'sh',
  '/bin/cat': 'cat',
  '/bin/grep': 'grep',
  // The suite reads the mode of Redis's files with it (as it would with busybox's on the upstream image).
  '/usr/bin/stat': 'stat',
};

async function hostPath(name: string): Promise<string> {
  const { stdout } = await runCommand('sh', ['-c', `command -v ${name}`]);
  return realpath(stdout.trim());
}

/** Builds the image into `file`; fails when the host lacks Debian's redis-server. */
export async function exportRedisImage(file: string): Promise<LayoutImage> {
  const files: RootfsFile[] = [];
  const libraries = new Set<string>();
  for (const [path, name] of Object.entries(PROGRAMS)) {
    const source = await hostPath(name);
    files.push({ path, mode: 0o755, source });
    for (const library of await sharedLibraries(runCommand, source)) libraries.add(library);
  }
  for (const library of [...libraries].sort()) files.push({ path: library, mode: 0o755, source: library });
  files.push(
    { path: '/etc/passwd', mode: 0o644, content: 'redis:x:999:999:redis:/data:/sbin/nologin\n' },
    { path: '/etc/group', mode: 0o644, content: 'redis:x:999:\n' },
  );
  const dirs = ['/etc', '/proc', '/sys', '/dev', '/run', '/data', '/usr/local/bin'].map((path) => ({
    path,
    mode: 0o755,
  }));
  return exportLayoutImage({
    name: 'redis',
    layout: { files, dirs: [...dirs, { path: '/tmp', mode: 0o1777 }] },
    file,
    config: {
      cmd: ['/usr/bin/redis-server'],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      workingDir: '/data',
      user: '999:999',
      exposedPort: 6379,
      labels: { 'org.opencontainers.image.description': "Debian's redis-server" },
    },
  });
}

/** The pinned kustomization with Redis mapped to `reference` (appended to its `images:` list). */
export function pinRedis(kustomization: string, reference: string): string {
  const colon = reference.lastIndexOf(':');
  if (!/\nimages:\n/.test(kustomization)) throw new Error('the pinned kustomization has no images list');
  return `${kustomization.trimEnd()}\n  - name: ${UPSTREAM_REDIS_IMAGE}\n    newName: ${reference.slice(0, colon)}\n    newTag: '${reference.slice(colon + 1)}'\n`;
}
