import { realpath } from 'node:fs/promises';
import type { CommandRunner } from '../command-runner';

/** The Node major version images are built with (the repository's runtime). */
const IMAGE_NODE_MAJOR = 24;

/**
 * Resolves the Node binary to copy into an image: the given path or the running Node, symlinks
 * followed, checked to be Node {@link IMAGE_NODE_MAJOR} by running it.
 */
export async function resolveNodeBinary(run: CommandRunner, candidate: string): Promise<string> {
  const binary = await realpath(candidate);
  const { stdout } = await run(binary, ['--version']);
  const version = stdout.trim();
  if (!version.startsWith(`v${IMAGE_NODE_MAJOR}.`)) {
    throw new Error(`${binary} is Node ${version}; images need Node ${IMAGE_NODE_MAJOR}`);
  }
  return binary;
}

/**
 * Paths of the shared libraries (and the dynamic loader) a binary needs, from `ldd` output. The
 * kernel-provided vDSO has no file and is skipped; a missing library is an error.
 */
export function parseLddOutput(output: string): string[] {
  const paths = new Set<string>();
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.includes('not found')) throw new Error(`missing shared library: ${line}`);
    const arrow = /=>\s*(\/\S+)/.exec(line);
    const direct = /^(\/\S+)/.exec(line);
    const path = arrow?.[1] ?? direct?.[1];
    if (path) paths.add(path);
  }
  return [...paths].sort();
}

/** The shared libraries of a binary, found with `ldd`. */
export async function sharedLibraries(run: CommandRunner, binary: string): Promise<string[]> {
  const { stdout } = await run('ldd', [binary]);
  return parseLddOutput(stdout);
}
