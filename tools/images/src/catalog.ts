import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** An app of this repository that can be built into an image. */
export interface CatalogApp {
  /** Absolute path of the app's entry file. */
  entryFile: string;
  port: number;
}

/** The repository's app images by name (the tag is `localhost/sandbox-<name>:<hash>`). */
export const IMAGE_CATALOG: Readonly<Record<string, CatalogApp>> = Object.freeze({
  'example-app': { entryFile: join(ROOT, 'apps', 'example-app', 'src', 'main.ts'), port: 8080 },
});
