import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeAppImage, type NodeAppImageOptions } from './node-app-image';

const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** An app of this repository (`apps/<name>/src/main.ts`) that images are built from, on port 8080. */
export interface RepositoryApp {
  readonly name: string;
  readonly entryFile: string;
  readonly port: number;
}

const repositoryApp = (name: string): RepositoryApp =>
  Object.freeze({ name, entryFile: join(REPOSITORY_ROOT, 'apps', name, 'src', 'main.ts'), port: 8080 });

/**
 * The repository's example app (apps/example-app): an ordinary HTTP app serving `GET /healthz`, an
 * echo, SSE and a WebSocket echo on port 8080, with no Livepeer code.
 */
export const EXAMPLE_APP = repositoryApp('example-app');

/**
 * The repository's evaluation responder (apps/eval-responder): an ordinary HTTP app serving the
 * verifier's challenge routes on port 8080, holding no key, token or credential.
 */
export const EVAL_RESPONDER = repositoryApp('eval-responder');

type ImageOptions = Omit<NodeAppImageOptions, 'name' | 'entryFile' | 'port'>;

async function ensureAppImage(app: RepositoryApp, options: ImageOptions): Promise<string> {
  return (await ensureNodeAppImage({ ...app, ...options })).tag;
}

/** Builds (or finds) the example app's image and returns its tag. */
export const ensureExampleAppImage = (options: ImageOptions = {}): Promise<string> =>
  ensureAppImage(EXAMPLE_APP, options);

/** Builds (or finds) the evaluation responder's image and returns its tag. */
export const ensureEvalResponderImage = (options: ImageOptions = {}): Promise<string> =>
  ensureAppImage(EVAL_RESPONDER, options);
