// runsc runs as root and starts every sandbox: a binary another user could replace (or write into,
// or swap by renaming its folder) would be code run as root. Before root executes a cached binary,
// it and every folder above it must be owned by root and writable by no one else (a sticky folder
// such as /tmp excepted above the binary's own folder: there others cannot rename what they do not own).
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A binary that root must not execute; `reason` names the path, its owner and mode. */
export class UntrustedBinaryError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`refusing to run ${path} as root: ${reason}`);
    this.name = 'UntrustedBinaryError';
  }
}

const STICKY = 0o1000;

function describe(path: string, info: { uid: number; mode: number }): string {
  return `${path} is owned by uid ${info.uid} with mode ${(info.mode & 0o7777).toString(8)}`;
}

/**
 * Resolves when `path` is safe for root to execute: nothing to check when this process is not root
 * (it cannot give another user more than it has). Throws {@link UntrustedBinaryError} otherwise.
 */
export async function assertTrustedBinary(
  path: string,
  uid: number | undefined = process.getuid?.(),
): Promise<void> {
  if (uid !== 0) return;
  const file = await stat(path);
  if (!file.isFile()) throw new UntrustedBinaryError(path, `${path} is not a regular file`);
  if (file.uid !== 0 || (file.mode & 0o022) !== 0) throw new UntrustedBinaryError(path, describe(path, file));
  let dir = dirname(path);
  for (let own = true; ; own = false) {
    const info = await stat(dir);
    const sticky = !own && (info.mode & STICKY) !== 0;
    if (info.uid !== 0 || ((info.mode & 0o022) !== 0 && !sticky))
      throw new UntrustedBinaryError(path, describe(dir, info));
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}
