import { formatZodIssues } from '@sandbox/protocol';
import { INVALID_REQUEST_MESSAGE, InputError, UnavailableError } from '@sandbox/service-kit';
import { isRedisUnavailableError } from '@sandbox/queue';
import type { ErrorRequestHandler } from 'express';
import type { z } from 'zod';

type Part<S extends z.ZodType> = readonly [where: string, schema: S, value: unknown];

/**
 * Validates several request parts at once (path, query, body) and reports every bad field of all of
 * them in one 400, each path prefixed with its part.
 */
export function validateParts<A extends z.ZodType, B extends z.ZodType>(
  first: Part<A>,
  second: Part<B>,
): [z.output<A>, z.output<B>] {
  const results = [first, second].map(([where, schema, value]) => ({
    where,
    result: schema.safeParse(value),
  }));
  const issues = results.flatMap(({ where, result }) =>
    result.success
      ? []
      : formatZodIssues(result.error).map((issue) => ({
          ...issue,
          path: issue.path === '(root)' ? where : `${where}.${issue.path}`,
        })),
  );
  if (issues.length > 0) throw new InputError(INVALID_REQUEST_MESSAGE, { issues });
  return results.map(({ result }) => result.data) as [z.output<A>, z.output<B>];
}

/** Turns "Redis is unreachable" into 503 for the shared error middleware. */
export const redisUnavailableAs503: ErrorRequestHandler = (error, _req, _res, next) => {
  next(
    isRedisUnavailableError(error) ? new UnavailableError('storage is unavailable', { cause: error }) : error,
  );
};
