import { isSecretFieldName, SECRET_FIELD_NAMES } from '@sandbox/protocol';

/** What a secret-bearing field's value is replaced with (the same marker as protocol's `redactSecrets`). */
export const REDACTED = '[redacted]';

/** HTTP header names that carry credentials although they are not protocol fields. */
const EXTRA_SECRET_KEYS = ['cookie', 'set-cookie', 'proxy-authorization', 'x-api-key'] as const;
const extraKeys = new Set<string>(EXTRA_SECRET_KEYS);

/** Every key name the logger redacts, lower-cased. */
export const SECRET_KEYS: readonly string[] = Object.freeze([
  ...SECRET_FIELD_NAMES.map((name) => name.toLowerCase()),
  ...EXTRA_SECRET_KEYS,
]);

/** True when a field with this key carries a secret (protocol names plus credential headers). */
export function isSecretKey(key: string): boolean {
  return isSecretFieldName(key) || extraKeys.has(key.toLowerCase());
}

const MAX_DEPTH = 16;

/**
 * Copies a value with every secret-bearing field replaced by {@link REDACTED}, at any depth. Plain
 * objects and arrays are walked; errors go through `onError` (the error serializer); other objects
 * (class instances, buffers, dates) are returned as they are and left to the final-line check.
 */
export function redactDeep(
  value: unknown,
  onError: (error: Error) => unknown,
  depth = 0,
  seen = new Set<object>(),
): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return onError(value);
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(value);
  try {
    if (isArray) return value.map((item) => redactDeep(item, onError, depth + 1, seen));
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isSecretKey(key) ? REDACTED : redactDeep(inner, onError, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A request target (`/path?query`) with the values of secret-named query parameters redacted. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (isSecretKey(key)) {
      params.set(key, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, queryStart)}?${params.toString()}` : url;
}

// The user-info part of a URL (`redis://user:password@host`), up to the last `@` before the host.
const urlCredentials = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"]+@/gi;

/** Text with the credentials of every URL in it (`scheme://user:password@`) redacted. */
export function redactUrlCredentials(text: string): string {
  return text.replace(urlCredentials, `$1${REDACTED}@`);
}

// A secret key in a JSON line whose value is not already the redaction marker.
const unredactedKey = new RegExp(
  `"(?:${SECRET_KEYS.map((key) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})":(?!"\\[redacted\\]")`,
  'i',
);

/**
 * The last line of defence, run on every finished log line: if some field named like a secret still
 * has a value (a class instance's field, a serializer we did not write), the line is parsed, redacted
 * at every depth and written again. Lines without such a key (nearly all) are returned untouched.
 */
export function redactLine(line: string): string {
  if (!unredactedKey.test(line)) return line;
  try {
    const parsed = JSON.parse(line) as unknown;
    return `${JSON.stringify(redactParsed(parsed))}\n`;
  } catch {
    return `${JSON.stringify({ level: 'error', msg: 'log line withheld: it could not be redacted' })}\n`;
  }
}

function redactParsed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactParsed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, isSecretKey(key) ? REDACTED : redactParsed(inner)]),
  );
}
