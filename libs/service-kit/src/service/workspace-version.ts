import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The `version` of the workspace's root package.json (the first one above `from` with `workspaces`):
 * the same file whether a service runs from its sources or from its bundle in `dist/`. Undefined when
 * there is none (a bundle copied elsewhere; `SERVICE_VERSION` then says it).
 */
export function workspaceVersion(
  from: string,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(read(join(dir, 'package.json'))) as {
        workspaces?: unknown;
        version?: unknown;
      };
      if (manifest.workspaces !== undefined)
        return typeof manifest.version === 'string' ? manifest.version : undefined;
    } catch {
      // No (readable) package.json here: look further up.
    }
    if (dirname(dir) === dir) return undefined;
  }
}
