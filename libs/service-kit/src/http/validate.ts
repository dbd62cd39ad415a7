import type { z } from 'zod';
import { InputError } from '../errors/app-error';
import { formatZodIssues } from '@sandbox/protocol';

/** The message of the InputError {@link validate} throws; the detail is in `issues`. */
export const INVALID_REQUEST_MESSAGE = 'request is invalid';

/**
 * Parses a request part with a zod schema and returns the typed value, or throws an
 * {@link InputError} (400 `invalid_request`) listing every problem as `{ path, message }`.
 *
 * @param where - prefix of each issue path, e.g. `body` or `query`.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InputError(INVALID_REQUEST_MESSAGE, {
    cause: result.error,
    issues: formatZodIssues(result.error).map((issue) => ({
      ...issue,
      path: where === undefined ? issue.path : issue.path === '(root)' ? where : `${where}.${issue.path}`,
    })),
  });
}
