import { ForbiddenError } from '@sandbox/service-kit';
import type { NextFunction, Request, Response } from 'express';

/**
 * The only board calls a writable dashboard lets through: retrying, promoting, pausing and resuming
 * (a queue or all of them), and removing one job. Everything else the board offers stays refused,
 * whatever board version adds: adding or editing jobs would put payloads on our queues that no producer
 * validated; emptying, obliterating or cleaning a whole queue would lose work nobody could get back;
 * rate limits, concurrency and job schedulers belong to the services that own the queues (a rate limit
 * of one job an hour on ticket delivery, or the verifier's schedule removed, is an outage).
 */
const ALLOWED_WRITES: readonly RegExp[] = [
  /^\/api\/queues\/(?:pause|resume)$/,
  /^\/api\/queues\/[^/]+\/(?:pause|resume|promote)$/,
  /^\/api\/queues\/[^/]+\/retry\/(?:failed|completed)$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/(?:retry|promote|clean)$/,
];

const REFUSED_WRITE =
  'only retrying, promoting, pausing or resuming queues and jobs, and removing one job, are allowed from the dashboard';

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

/** Refuses every state-changing board request unless writable, and all but the allowed ones always. */
export function boardWriteGuard(writable: boolean) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const reads = request.method === 'GET' || request.method === 'HEAD';
    if (reads) return next();
    if (!writable)
      return next(new ForbiddenError('the dashboard is read-only; start it with DASHBOARD_WRITABLE=true'));
    const path = routedPath(request.path);
    const allowed = request.method === 'PUT' && ALLOWED_WRITES.some((pattern) => pattern.test(path));
    next(allowed ? undefined : new ForbiddenError(REFUSED_WRITE));
  };
}
