import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CommandRunner } from '../command-runner';
import { writeImageArchive, type ImageArchive, type ImageRuntimeConfig } from './image-archive';
import { layoutDigest, writeLayout, type RootfsLayout } from './rootfs-layout';

/** An image archive written from a root filesystem layout (any program, not only a Node app). */
export interface LayoutImage {
  /** `localhost/sandbox-<name>:<16 hex of the content hash>`. */
  reference: string;
  archive: ImageArchive;
}

/**
 * Writes `layout` as a one-layer image archive at `file`, tagged by a hash of every file, mode and
 * config value (an unchanged layout gives the same reference on every machine).
 */
export async function exportLayoutImage(input: {
  name: string;
  layout: RootfsLayout;
  config: ImageRuntimeConfig;
  file: string;
  run?: CommandRunner;
}): Promise<LayoutImage> {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(input.name))
    throw new Error('image name must be lowercase letters, digits and dashes');
  const hash = await layoutDigest(input.layout, JSON.stringify(input.config));
  const reference = `localhost/sandbox-${input.name}:${hash.slice(0, 16)}`;
  const workDir = await mkdtemp(join(tmpdir(), 'sandbox-image-'));
  try {
    const rootDir = join(workDir, 'rootfs');
    await writeLayout(rootDir, input.layout);
    const run = input.run ?? runCommand;
    const archive = await writeImageArchive({
      run,
      rootDir,
      reference,
      config: input.config,
      file: input.file,
    });
    return { reference, archive };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
