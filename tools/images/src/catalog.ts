import { EVAL_RESPONDER, EXAMPLE_APP } from '@sandbox/sandbox-local';

/** An app of this repository that can be built into an image. */
export interface CatalogApp {
  /** Absolute path of the app's entry file. */
  entryFile: string;
  port: number;
}

/** The repository's app images by name (the tag is `localhost/sandbox-<name>:<hash>`). */
export const IMAGE_CATALOG: Readonly<Record<string, CatalogApp>> = Object.freeze({
  [EXAMPLE_APP.name]: { entryFile: EXAMPLE_APP.entryFile, port: EXAMPLE_APP.port },
  [EVAL_RESPONDER.name]: { entryFile: EVAL_RESPONDER.entryFile, port: EVAL_RESPONDER.port },
});
