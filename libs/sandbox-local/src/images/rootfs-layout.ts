import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative } from 'node:path';

/** A file of the root filesystem: copied from `source` or written from `content`. */
export interface RootfsFile {
  path: string;
  mode: number;
  source?: string;
  content?: string | Uint8Array;
}

/** A directory of the root filesystem. */
export interface RootfsDir {
  path: string;
  mode: number;
}

/** The whole root filesystem of an image. */
export interface RootfsLayout {
  files: RootfsFile[];
  dirs: RootfsDir[];
}

const PASSWD =
  'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n';
const GROUP = 'root:x:0:\nnogroup:x:65534:\n';
const NSSWITCH = 'passwd: files\ngroup: files\nhosts: files dns\n';

/** Where the Node binary lives inside images. */
export const IMAGE_NODE_PATH = '/usr/local/bin/node';
/** Where the bundled app lives inside images. */
export const IMAGE_APP_PATH = '/app/main.mjs';

/**
 * A minimal root filesystem for a Node app: the Node binary, the shared libraries it links (at the
 * paths the loader looks them up), the bundled app, an unprivileged user, and the mount points a
 * runtime expects. Nothing else: no shell, no package manager.
 */
export function nodeAppLayout(input: {
  nodeBinary: string;
  libraries: readonly string[];
  appBundle: string;
  /** Extra read-only files (static assets the app serves). @defaultValue [] */
  assets?: readonly RootfsFile[];
}): RootfsLayout {
  return {
    files: [
      { path: IMAGE_NODE_PATH, mode: 0o755, source: input.nodeBinary },
      ...input.libraries.map((library) => ({ path: library, mode: 0o755, source: library })),
      { path: IMAGE_APP_PATH, mode: 0o644, content: input.appBundle },
      ...(input.assets ?? []),
      { path: '/etc/passwd', mode: 0o644, content: PASSWD },
      { path: '/etc/group', mode: 0o644, content: GROUP },
      { path: '/etc/nsswitch.conf', mode: 0o644, content: NSSWITCH },
    ],
    dirs: [
      ...['/app', '/etc', '/proc', '/sys', '/dev', '/run'].map((path) => ({ path, mode: 0o755 })),
      ...['/tmp', '/var/tmp'].map((path) => ({ path, mode: 0o1777 })),
    ],
  };
}

async function fileDigest(file: RootfsFile): Promise<string> {
  const hash = createHash('sha256');
  if (file.source) {
    for await (const chunk of createReadStream(file.source)) hash.update(chunk as Buffer);
  } else {
    hash.update(file.content ?? '');
  }
  return hash.digest('hex');
}

/** A digest of every path, mode and file content, plus `extra` (the image config): the image's tag. */
export async function layoutDigest(layout: RootfsLayout, extra: string): Promise<string> {
  const hash = createHash('sha256');
  const files = [...layout.files].sort((a, b) => a.path.localeCompare(b.path));
  for (const file of files)
    hash.update(`f ${file.path} ${file.mode.toString(8)} ${await fileDigest(file)}\n`);
  for (const dir of [...layout.dirs].sort((a, b) => a.path.localeCompare(b.path))) {
    hash.update(`d ${dir.path} ${dir.mode.toString(8)}\n`);
  }
  hash.update(extra);
  return hash.digest('hex');
}

/** Parent directories of the layout's files that the layout does not declare itself. */
function impliedDirs(layout: RootfsLayout): string[] {
  const declared = new Set(layout.dirs.map((dir) => dir.path));
  const implied = new Set<string>();
  for (const file of layout.files) {
    for (let dir = dirname(file.path); dir !== '/'; dir = dirname(dir))
      if (!declared.has(dir)) implied.add(dir);
  }
  return [...implied];
}

/**
 * Writes the layout under `root` (a fresh directory). Every mode is set explicitly, so the image does
 * not depend on the builder's umask (the app runs as nobody and must be able to read it all).
 */
export async function writeLayout(root: string, layout: RootfsLayout): Promise<void> {
  await mkdir(root, { recursive: true });
  await chmod(root, 0o755);
  for (const dir of [...impliedDirs(layout).map((path) => ({ path, mode: 0o755 })), ...layout.dirs]) {
    await mkdir(join(root, dir.path), { recursive: true });
    await chmod(join(root, dir.path), dir.mode);
  }
  for (const file of layout.files) {
    const target = join(root, file.path);
    await mkdir(dirname(target), { recursive: true });
    if (file.source) await copyFile(file.source, target);
    else await writeFile(target, file.content ?? '');
    await chmod(target, file.mode);
  }
}

/**
 * Every regular file under `sourceDir`, placed under `imageDir` in the image (mode 0644): how static
 * assets such as a UI's bundle go in.
 */
export async function directoryAssets(sourceDir: string, imageDir: string): Promise<RootfsFile[]> {
  const entries = await readdir(sourceDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const source = join(entry.parentPath, entry.name);
      const inside = relative(sourceDir, source).split('/').join(posix.sep);
      return { path: posix.join(imageDir, inside), mode: 0o644, source };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}
