import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeAppImage, type NodeAppImageOptions } from './node-app-image';

/**
 * The repository's evaluation responder (apps/eval-responder): an ordinary HTTP app serving the
 * verifier's challenge routes on port 8080, holding no key, token or credential.
 */
export const EVAL_RESPONDER = Object.freeze({
  name: 'eval-responder',
  entryFile: join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    '..',
    '..',
    'apps',
    'eval-responder',
    'src',
    'main.ts',
  ),
  port: 8080,
});

/** Builds (or finds) the evaluation responder's image and returns its tag. */
export async function ensureEvalResponderImage(
  options: Omit<NodeAppImageOptions, 'name' | 'entryFile' | 'port'> = {},
): Promise<string> {
  return (await ensureNodeAppImage({ ...EVAL_RESPONDER, ...options })).tag;
}
