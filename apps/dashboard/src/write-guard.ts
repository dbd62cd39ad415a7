import { ForbiddenError } from '@sandbox/service-kit';
import type { NextFunction, Request, Response } from 'express';

/**
 * Board API calls refused even when the board is writable. Adding jobs and editing job data would put
 * payloads on our queues that no producer validated; emptying, obliterating or cleaning a whole queue
 * would lose work nobody could get back.
 */
const ALWAYS_REFUSED: readonly { pattern: RegExp; reason: string }[] = [
  {
    pattern: /^\/api\/queues\/[^/]+\/(?:add|[^/]+\/update-data)$/,
    reason: 'adding or editing jobs from the dashboard is not allowed',
  },
  {
    pattern: /^\/api\/queues\/[^/]+\/(?:empty|obliterate|clean\/[^/]+)$/,
    reason: 'emptying, obliterating or cleaning a whole queue from the dashboard is not allowed',
  },
];

/**
 * The request path as express routes it: case-insensitively, with or without trailing slashes, and with
 * percent-escapes decoded, so no spelling of a refused route slips past the patterns.
 */
export function routedPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape stays as it is; the board's router will not match it either.
  }
  return decoded
    .toLowerCase()
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '');
}

/** Refuses every state-changing board request unless writable, and the unvalidated or queue-wide ones always. */
export function boardWriteGuard(writable: boolean) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const reads = request.method === 'GET' || request.method === 'HEAD';
    if (reads) return next();
    if (!writable)
      return next(new ForbiddenError('the dashboard is read-only; start it with DASHBOARD_WRITABLE=true'));
    const path = routedPath(request.path);
    const refused = ALWAYS_REFUSED.find((entry) => entry.pattern.test(path));
    if (refused) return next(new ForbiddenError(refused.reason));
    next();
  };
}
