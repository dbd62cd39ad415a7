import { ForbiddenError } from '@sandbox/service-kit';
import type { NextFunction, Request, Response } from 'express';

/**
 * Board API calls that change state. Adding jobs and editing job data are refused even when the board
 * is writable: they would put payloads on our queues that no producer validated.
 */
const ALWAYS_REFUSED = [/\/api\/queues\/[^/]+\/add$/, /\/api\/queues\/[^/]+\/[^/]+\/update-data$/];

/** Refuses every state-changing board request unless writable, and the unvalidated ones always. */
export function boardWriteGuard(writable: boolean) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const reads = request.method === 'GET' || request.method === 'HEAD';
    if (reads) return next();
    if (!writable)
      return next(new ForbiddenError('the dashboard is read-only; start it with DASHBOARD_WRITABLE=true'));
    if (ALWAYS_REFUSED.some((pattern) => pattern.test(request.path))) {
      return next(new ForbiddenError('adding or editing jobs from the dashboard is not allowed'));
    }
    next();
  };
}
