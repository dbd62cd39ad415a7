import type { NextFunction, Request, Response } from 'express';
import type { Histogram } from 'prom-client';
import type { HttpLabel } from '../metrics/metrics';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route label: the matched pattern (`/v1/apps/:app`), never the raw path, so ids in paths do
 * not create a series each; `unmatched` for 404s.
 */
function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? `${req.baseUrl}${route.path}` : 'unmatched';
}

/** Observes every request's duration in the histogram when its response closes. */
export function httpMetricsMiddleware(histogram: Histogram<HttpLabel>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = histogram.startTimer();
    res.once('close', () => {
      const method = KNOWN_METHODS.has(req.method) ? req.method : 'OTHER';
      end({ method, route: routeLabel(req), status_code: String(res.statusCode) });
    });
    next();
  };
}
