import { z } from 'zod';

/** A string holding JSON, parsed (a stored value we wrote ourselves; unreadable text is an issue, not a throw). */
export const JsonTextSchema = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be JSON' });
    return z.NEVER;
  }
});
