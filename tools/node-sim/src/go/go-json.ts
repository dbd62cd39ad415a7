import { GO_JSON_NUMBER_PATTERN } from '@sandbox/protocol';

/** A JSON number kept as its source text, which Go's decoder inspects (`1.0` is not an int). */
export class JsonNumber {
  constructor(readonly source: string) {}
}

/** Raised when a body would fail Go's `encoding/json` decode into Node's request struct. */
export class GoJsonError extends Error {
  override readonly name = 'GoJsonError';
}

type Reviver = (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown;

/** `JSON.parse` with every number wrapped in a {@link JsonNumber}; throws {@link GoJsonError}. */
export function parseJsonKeepingNumbers(text: string): unknown {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' ? new JsonNumber(context.source ?? String(value)) : value;
  try {
    return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
  } catch {
    throw new GoJsonError('malformed JSON');
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go `int` (int64): an integer literal without fraction or exponent. `null` leaves `current`. */
export function decodeInt(value: unknown, current: number): number {
  if (value === null) return current;
  if (!(value instanceof JsonNumber) || !/^-?\d+$/u.test(value.source)) throw new GoJsonError('expected int');
  const parsed = BigInt(value.source);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw new GoJsonError('int overflow');
  return Number(parsed);
}

/** Go `string`. `null` leaves `current`. */
export function decodeString(value: unknown, current: string): string {
  if (value === null) return current;
  if (typeof value !== 'string') throw new GoJsonError('expected string');
  return value;
}

/** Go `bool`. `null` leaves `current`. */
export function decodeBool(value: unknown, current: boolean): boolean {
  if (value === null) return current;
  if (typeof value !== 'boolean') throw new GoJsonError('expected bool');
  return value;
}

/** Go `json.Number`: a number, or a string holding a valid number literal; kept as text. */
export function decodeNumberText(value: unknown, current: string): string {
  if (value === null) return current;
  if (value instanceof JsonNumber) return value.source;
  if (typeof value === 'string' && GO_JSON_NUMBER_PATTERN.test(value)) return value;
  throw new GoJsonError('expected number');
}

/** Go `[]string`: `null` means nil; `null` elements become empty strings. */
export function decodeStringArray(value: unknown): string[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw new GoJsonError('expected array');
  return value.map((item) => decodeString(item, ''));
}

/**
 * Walks a JSON object the way Go fills a struct: keys match field names exactly or, failing that,
 * case-insensitively; later keys overwrite earlier ones; unknown keys are ignored.
 */
export function forEachField(
  value: unknown,
  fields: readonly string[],
  apply: (field: string, fieldValue: unknown) => void,
): void {
  if (value === null) return;
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumber) {
    throw new GoJsonError('expected object');
  }
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = fields.includes(key)
      ? key
      : fields.find((name) => name.toLowerCase() === key.toLowerCase());
    if (field !== undefined) apply(field, fieldValue);
  }
}
