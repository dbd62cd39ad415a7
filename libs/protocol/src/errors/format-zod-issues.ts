import { z } from 'zod';

/**
 * One invalid field: where it is and what is wrong, never what was sent. `path` is dotted from the root
 * (`instances.capacity`, `tickets.3.sig`), `(root)` for the value itself.
 */
export const FieldIssueSchema = z.strictObject({ path: z.string().min(1), message: z.string().min(1) });
export type FieldIssue = z.infer<typeof FieldIssueSchema>;

/**
 * Object keys are input too: a key is shown only when it looks like a field name (an identifier of at most
 * 64 characters) and not like a token (16 or more hex digits); other keys become `<key>`.
 */
const identifier = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const tokenLike = /^[0-9a-fA-F]{16,}$/;
function isShowableKey(key: string): boolean {
  return identifier.test(key) && !tokenLike.test(key);
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((segment) => {
      if (typeof segment === 'number') return String(segment);
      if (typeof segment === 'string' && isShowableKey(segment)) return segment;
      return '<key>';
    })
    .join('.');
}

/**
 * The message of one issue. zod 4's messages name expected types, formats and limits but not the input,
 * with one exception rewritten here: `unrecognized_keys` lists the input's keys.
 */
function formatMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys': {
      const named = issue.keys.filter(isShowableKey);
      if (named.length !== issue.keys.length) return `unrecognized keys (${issue.keys.length})`;
      return `unrecognized key${named.length > 1 ? 's' : ''}: ${named.map((key) => `"${key}"`).join(', ')}`;
    }
    case 'invalid_key':
      return issue.issues[0] ? `invalid key: ${formatMessage(issue.issues[0])}` : issue.message;
    case 'invalid_union':
      if (issue.discriminator !== undefined && issue.errors.length === 0 && 'options' in issue) {
        return `must be one of ${(issue.options ?? []).map((option) => `"${String(option)}"`).join(', ')}`;
      }
      return 'matches none of the allowed forms';
    default:
      return issue.message;
  }
}

/**
 * Turns a zod error (or its issues) into `{ path, message }` pairs for HTTP 400 bodies and failed-job
 * reasons. Paths are dotted with numeric indexes (`tickets.3.sig`). No input value ever appears:
 * zod 4 leaves input out of its default messages unless asked (`reportInput`), our own refinement
 * messages never quote input, and object keys that do not look like field names are replaced by `<key>` (keys that do, such as
 * a misspelt field, are named: that is what the caller needs to fix).
 */
export function formatZodIssues(error: z.ZodError | readonly z.core.$ZodIssue[]): FieldIssue[] {
  const issues = Array.isArray(error) ? error : (error as z.ZodError).issues;
  return issues.map((issue: z.core.$ZodIssue) => ({
    path: formatPath(issue.path),
    message: formatMessage(issue),
  }));
}

/** `path: message; path: message` for the first `limit` issues, with a count of the rest. */
export function joinFieldIssues(issues: readonly FieldIssue[], limit = 10): string {
  const shown = issues.slice(0, limit).map((issue) => `${issue.path}: ${issue.message}`);
  const more = issues.length > limit ? `; and ${issues.length - limit} more` : '';
  return `${shown.join('; ')}${more}`;
}

/** One-line summary of {@link formatZodIssues}, e.g. as the reason of an unrecoverable job. */
export function summarizeZodIssues(error: z.ZodError | readonly z.core.$ZodIssue[], limit = 10): string {
  return joinFieldIssues(formatZodIssues(error), limit);
}
