import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** The header a request id arrives in and is echoed back in. */
const REQUEST_ID_HEADER = 'X-Request-Id';

// Printable, short, no separators that could forge log fields or header lines.
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** True when an incoming request id is safe to adopt (1-128 of `A-Z a-z 0-9 . _ : -`). */
function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value);
}

/** The request id the middleware assigned (`''` before it ran). */
export function requestIdOf(req: Request): string {
  const id = (req as Request & { id?: unknown }).id;
  return typeof id === 'string' ? id : '';
}

/**
 * Adopts a sane incoming `X-Request-Id` or generates a UUID, stores it as `req.id` (pino-http logs
 * it as `reqId`) and echoes it in the response header.
 */
export function requestIdMiddleware(generate: () => string = randomUUID) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get(REQUEST_ID_HEADER);
    const id = isSaneRequestId(incoming) ? incoming : generate();
    (req as Request & { id?: string }).id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}
