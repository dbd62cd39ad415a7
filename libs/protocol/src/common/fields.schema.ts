import { z } from 'zod';

/**
 * Every timestamp in our payloads: an ISO 8601 date-time in UTC with a `Z` suffix
 * (`2025-06-01T12:00:00.000Z`, what `Date.prototype.toISOString` produces). Offsets are refused so
 * that equal instants are equal strings.
 */
export const TimestampSchema = z.iso.datetime({ message: 'must be an ISO 8601 UTC date-time ending in Z' });
export type Timestamp = z.infer<typeof TimestampSchema>;

/**
 * An instance's private HTTP base URL (`http://10.42.0.17:8080`): http or https, no user info and no
 * fragment, because Node proxies to it and appends paths and queries.
 */
export const InstanceUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an absolute http or https URL', abort: true })
  .max(2048)
  .refine(hasNoCredentialsOrFragment, { message: 'must not contain user info or a fragment' });
export type InstanceUrl = z.infer<typeof InstanceUrlSchema>;

function hasNoCredentialsOrFragment(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.hash === '' && !value.includes('#');
  } catch {
    return false;
  }
}

/** Printable text without control characters; used for human-readable reasons and versions. */
function printable(max: number) {
  return z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, { message: 'must not contain control characters' });
}

/** A short human-readable reason (withdrawals, terminal outcomes). Never put secrets or input in it. */
export const ReasonSchema = printable(256);
export type Reason = z.infer<typeof ReasonSchema>;

/** An app version label, stored by Node and echoed in discovery. */
export const VersionSchema = printable(128);
export type Version = z.infer<typeof VersionSchema>;
