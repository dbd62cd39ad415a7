import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpError } from './respond';

/** Path wildcards of a matched route, already percent-decoded. */
export type PathValues = Readonly<Record<string, string>>;

export type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: PathValues,
) => void | Promise<void>;

interface Route {
  readonly method: string | undefined;
  readonly segments: readonly string[];
  readonly handler: RouteHandler;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Matches `/a/{x}/b/{rest...}` against a path; `{rest...}` takes the (possibly empty) remainder. */
function match(segments: readonly string[], path: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const rest = /^\{(\w+)\.\.\.\}$/u.exec(segment);
    if (rest?.[1] !== undefined) {
      if (path.length < index) return undefined;
      params[rest[1]] = path.slice(index).join('/');
      return params;
    }
    const part = path[index];
    if (part === undefined) return undefined;
    const wildcard = /^\{(\w+)\}$/u.exec(segment);
    if (wildcard?.[1] !== undefined) {
      if (part === '') return undefined;
      params[wildcard[1]] = part;
    } else if (segment !== part) return undefined;
  }
  return path.length === segments.length ? params : undefined;
}

/**
 * A small router with Go `ServeMux` answers: routes are tried in registration order (register the
 * more specific first), a path served under other methods gets 405 with `Allow`, anything else
 * `404 page not found`. A GET route also serves HEAD.
 */
export class Router {
  readonly #routes: Route[] = [];

  /** `method` undefined means any method. */
  add(method: string | undefined, pattern: string, handler: RouteHandler): this {
    this.#routes.push({ method, segments: pattern.split('/').slice(1), handler });
    return this;
  }

  async dispatch(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const raw = pathname.split('/').slice(1);
    const path = raw.map(decode);
    if (path.some((part) => part === undefined)) return httpError(res, 400, '400 Bad Request');
    const allowed = new Set<string>();
    for (const route of this.#routes) {
      const params = match(route.segments, path as string[]);
      if (!params) continue;
      const method = req.method ?? 'GET';
      if (
        route.method === undefined ||
        route.method === method ||
        (route.method === 'GET' && method === 'HEAD')
      ) {
        return route.handler(req, res, params);
      }
      allowed.add(route.method);
      if (route.method === 'GET') allowed.add('HEAD');
    }
    if (allowed.size > 0) {
      res.setHeader('Allow', [...allowed].sort().join(', '));
      return httpError(res, 405, 'Method Not Allowed');
    }
    return httpError(res, 404, '404 page not found');
  }
}
