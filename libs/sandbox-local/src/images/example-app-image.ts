import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeAppImage, type NodeAppImageOptions } from './node-app-image';

/**
 * The repository's example app (apps/example-app): an ordinary HTTP app serving `GET /healthz`, an
 * echo, SSE and a WebSocket echo on port 8080, with no Livepeer code.
 */
export const EXAMPLE_APP = Object.freeze({
  name: 'example-app',
  entryFile: join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    '..',
    '..',
    'apps',
    'example-app',
    'src',
    'main.ts',
  ),
  port: 8080,
});

/** Builds (or finds) the example app's image and returns its tag. */
export async function ensureExampleAppImage(
  options: Omit<NodeAppImageOptions, 'name' | 'entryFile' | 'port'> = {},
): Promise<string> {
  return (await ensureNodeAppImage({ ...EXAMPLE_APP, ...options })).tag;
}
