import {
  AppNameSchema,
  AppSpecSchema,
  formatZodIssues,
  type AppSpec,
  type AppSpecInput,
} from '@sandbox/protocol';
import { isMap, isNode, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import { z } from 'zod';
import { CliError } from '../cli/errors';

/** One document of a manifest: an app and its spec. */
export const AppDocumentSchema = z.strictObject({
  kind: z.literal('App'),
  name: AppNameSchema,
  spec: AppSpecSchema,
});

/** A validated app document and where it came from. */
export interface AppDocument {
  name: string;
  /** The spec as written (the service applies defaults itself). */
  spec: AppSpecInput;
  /** The spec with defaults applied, as the service will store it. */
  parsed: AppSpec;
  /** `file:line` of the document. */
  origin: string;
  /** Finds the line of a field of this document, for errors the service reports. */
  locate(path: readonly (string | number)[]): string;
}

/** A manifest that cannot be applied; every problem is listed as `file:line:column: field: message`. */
export class ManifestError extends CliError {
  override readonly name = 'ManifestError';
  readonly problems: readonly string[];
  /** `applied`: documents the service accepted before it refused one (none when validation failed). */
  constructor(source: string, problems: readonly string[], applied: readonly string[] = []) {
    const outcome =
      applied.length === 0
        ? 'nothing was applied'
        : `applied before the refusal: ${applied.map((name) => `app/${name}`).join(', ')}; nothing after it`;
    super(`${source} is invalid; ${outcome}:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

type Path = readonly (string | number)[];

/** The deepest node along `path` that exists (a missing field points at its parent object). */
function nodeAt(root: Node | null, path: Path): Node | null {
  let node = root;
  for (const segment of path) {
    const next: unknown = isMap(node) || isSeq(node) ? node.get(segment, true) : undefined;
    if (next === undefined || next === null || typeof next !== 'object') return node;
    node = next as Node;
  }
  return node;
}

/** Where an unknown key is written, rather than the object holding it. */
function keyNode(node: Node | null, key: string): Node | null {
  if (!isMap(node)) return node;
  const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === key);
  return (pair?.key as Node | undefined) ?? node;
}

function position(source: string, lines: LineCounter, node: Node | null): string {
  const offset = node?.range?.[0] ?? 0;
  const { line, col } = lines.linePos(offset);
  return `${source}:${line}:${col}`;
}

/** The documents of a text: YAML documents separated by `---`, or JSON (one object or an array of them). */
function rootsOf(text: string, source: string, lines: LineCounter): Node[] {
  const documents = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false });
  const list = Array.isArray(documents) ? documents : [];
  const problems = list.flatMap((document) =>
    document.errors.map((error) => {
      const at = error.linePos?.[0];
      return `${source}:${at?.line ?? 1}:${at?.col ?? 1}: ${error.message.split('\n')[0]}`;
    }),
  );
  if (problems.length > 0) throw new ManifestError(source, problems);
  const roots: Node[] = list.flatMap((document) => (document.contents === null ? [] : [document.contents]));
  // A JSON array (or a YAML sequence) at the top holds several documents.
  const [only] = roots;
  if (roots.length === 1 && isSeq(only)) return only.items.filter(isNode);
  return roots;
}

/** Parses and validates every document; throws {@link ManifestError} listing all problems of all documents. */
export function parseAppManifest(text: string, source: string): AppDocument[] {
  const lines = new LineCounter();
  const roots = rootsOf(text, source, lines);
  if (roots.length === 0) throw new ManifestError(source, [`${source}: no documents`]);
  const problems: string[] = [];
  const documents: AppDocument[] = [];
  for (const root of roots) {
    const parsed = AppDocumentSchema.safeParse(root.toJSON());
    if (!parsed.success) {
      const messages = formatZodIssues(parsed.error);
      parsed.error.issues.forEach((issue, index) => {
        const base = nodeAt(root, issue.path as Path);
        const node = issue.code === 'unrecognized_keys' ? keyNode(base, issue.keys[0] ?? '') : base;
        const message = messages[index];
        problems.push(`${position(source, lines, node)}: ${message?.path}: ${message?.message}`);
      });
      continue;
    }
    const spec = (root.toJSON() as { spec: AppSpecInput }).spec;
    documents.push({
      name: parsed.data.name,
      spec,
      parsed: parsed.data.spec,
      origin: position(source, lines, root).replace(/:\d+$/, ''),
      locate: (path) => position(source, lines, nodeAt(root, ['spec', ...path])),
    });
  }
  const seen = new Set<string>();
  for (const document of documents) {
    if (seen.has(document.name))
      problems.push(`${document.origin}: name: app "${document.name}" appears twice`);
    seen.add(document.name);
  }
  if (problems.length > 0) throw new ManifestError(source, problems);
  return documents;
}
