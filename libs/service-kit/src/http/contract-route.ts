import {
  expressPath,
  formatZodIssues,
  type FieldIssue,
  type RouteContract,
  type RouteRequest,
} from '@sandbox/protocol';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { ForbiddenError, InputError } from '../errors/app-error';
import { INVALID_REQUEST_MESSAGE } from './validate';

/** Handles one route once its request parts are parsed by the route's contract. */
export type ContractHandler<R extends RouteContract> = (
  request: RouteRequest<R>,
  req: Request,
  res: Response,
) => unknown;

/** Options of {@link serveRoute}. */
export interface ServeRouteOptions {
  /** Runs before the parts are parsed: the route's own credential check (Node's intake). */
  guard?: RequestHandler;
}

const PARTS = [
  ['params', 'path'],
  ['query', 'query'],
  ['body', 'body'],
] as const;

/**
 * Parses the parts of a request `contract` declares (path parameters, query, body), all of them, and
 * throws one {@link InputError} (400 `invalid_request`) listing every bad field, each path prefixed
 * with its part (`path.app`, `query.state`, `body.port`). Parts the contract does not declare are
 * left alone.
 */
export function parseRequest<R extends RouteContract>(contract: R, req: Request): RouteRequest<R> {
  const parsed: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const [part, where] of PARTS) {
    const schema: z.ZodType | undefined = contract[part];
    if (schema === undefined) continue;
    // Express hands path parameters and the query as objects without the plain prototype.
    const value: unknown = part === 'body' ? req.body : { ...req[part] };
    const result = schema.safeParse(value);
    if (result.success) parsed[part] = result.data;
    else
      for (const issue of formatZodIssues(result.error))
        issues.push({ ...issue, path: issue.path === '(root)' ? where : `${where}.${issue.path}` });
  }
  if (issues.length > 0) throw new InputError(INVALID_REQUEST_MESSAGE, { issues });
  return parsed as RouteRequest<R>;
}

/**
 * Serves `contract` on `router`: its method and path, its request parsed by its schemas before
 * `handler` runs ({@link parseRequest}), and its role held to (an `admin` route refuses the read
 * token the access policy let through, 403 `forbidden`).
 */
export function serveRoute<R extends RouteContract>(
  router: Router,
  contract: R,
  handler: ContractHandler<R>,
  options: ServeRouteOptions = {},
): void {
  const handle: RequestHandler = async (req, res) => {
    if (contract.role === 'admin' && res.locals['accessRole'] === 'read')
      throw new ForbiddenError('this call changes state and needs the admin token');
    await handler(parseRequest(contract, req), req, res);
  };
  const method = contract.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete';
  const handlers = options.guard === undefined ? [handle] : [options.guard, handle];
  router[method](expressPath(contract.path), ...handlers);
}
