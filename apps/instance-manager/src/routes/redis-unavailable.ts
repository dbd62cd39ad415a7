import { UnavailableError } from '@sandbox/service-kit';
import { isRedisUnavailableError } from '@sandbox/queue';
import type { ErrorRequestHandler } from 'express';

/** Turns "Redis is unreachable" into 503 for the shared error middleware. */
export const redisUnavailableAs503: ErrorRequestHandler = (error, _req, _res, next) => {
  next(
    isRedisUnavailableError(error) ? new UnavailableError('storage is unavailable', { cause: error }) : error,
  );
};
