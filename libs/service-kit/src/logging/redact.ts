import { isSecretFieldName, SECRET_FIELD_NAMES } from '@sandbox/protocol';

/** What a secret-bearing field's value is replaced with (the same marker as protocol's `redactSecrets`). */
export const REDACTED = '[redacted]';

/**
 * Names that carry credentials although they are not protocol fields: HTTP credential headers and the
 * names libraries and configuration commonly give tokens, API keys, private keys and passwords.
 */
const EXTRA_SECRET_KEYS = [
  'cookie',
  'set-cookie',
  'proxy-authorization',
  'x-api-key',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
  'api_key',
  'api-key',
  'apiKey',
  'private_key',
  'privateKey',
  'client_secret',
  'clientSecret',
  'passwd',
  'passphrase',
] as const;
const extraKeys = new Set<string>(EXTRA_SECRET_KEYS.map((key) => key.toLowerCase()));

/** Every key name the logger redacts, lower-cased. */
const SECRET_KEYS: readonly string[] = Object.freeze([
  ...new Set([...SECRET_FIELD_NAMES, ...EXTRA_SECRET_KEYS].map((name) => name.toLowerCase())),
]);

/** True when a field with this key carries a secret (protocol names plus common credential names). */
export function isSecretKey(key: string): boolean {
  return isSecretFieldName(key) || extraKeys.has(key.toLowerCase());
}

const keyAlternatives = SECRET_KEYS.map((key) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');

// A secret key in JSON text, quoted as is or escaped (JSON inside a string field), whose value is not
// already the redaction marker.
const unredactedKey = new RegExp(
  `\\\\*"(?:${keyAlternatives})\\\\*"\\s*:(?!\\s*\\\\*"\\[redacted\\]\\\\*")`,
  'i',
);

// A `"key": value` pair inside text that is not JSON (`password: x, {"password":"x"` cut short).
const embeddedPair = new RegExp(
  `("(?:${keyAlternatives})"\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"|[^\\s,}\\]]+)`,
  'gi',
);

/** What a string is replaced with when it names a secret key the redaction could not take apart. */
export const WITHHELD = '[withheld: text with an unredactable secret field]';

// Bounds the work on one string: each candidate end is a JSON.parse of the rest of the text.
const MAX_CANDIDATES = 32;

/** The JSON value starting at `start`, longest candidate first, or undefined when none parses. */
function jsonAt(text: string, start: number): { end: number; value: unknown } | undefined {
  const close = text[start] === '{' ? '}' : ']';
  let end = text.lastIndexOf(close);
  for (
    let tries = 0;
    end > start && tries < MAX_CANDIDATES;
    tries += 1, end = text.lastIndexOf(close, end - 1)
  ) {
    try {
      return { end: end + 1, value: JSON.parse(text.slice(start, end + 1)) as unknown };
    } catch {
      // A shorter candidate may still parse.
    }
  }
  return undefined;
}

/** Each JSON document embedded in the text, redacted in place. */
function redactEmbeddedJson(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const start = text.slice(index).search(/[{[]/);
    if (start < 0) break;
    const found = jsonAt(text, index + start);
    const stop = found ? found.end : index + start + 1;
    out +=
      text.slice(index, index + start) +
      (found ? JSON.stringify(redactParsed(found.value)) : text[index + start]);
    index = stop;
  }
  return out + text.slice(index);
}

/**
 * A string with the secret-named fields of the JSON it holds redacted: JSON documents in it (the whole
 * string or parts of it, at any depth, strings inside them included), then any loose `"key": value`
 * pair. Text that still names a secret key with a value after that is withheld whole. Strings that
 * mention no secret key (nearly all) are returned as they are.
 */
export function redactJsonText(text: string): string {
  if (!unredactedKey.test(text)) return text;
  const redacted = redactEmbeddedJson(text).replace(embeddedPair, `$1"${REDACTED}"`);
  return unredactedKey.test(redacted) ? WITHHELD : redacted;
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
  if (typeof value === 'string') return redactJsonText(value);
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
  if (typeof value === 'string') return redactJsonText(value);
  if (Array.isArray(value)) return value.map(redactParsed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, isSecretKey(key) ? REDACTED : redactParsed(inner)]),
  );
}
