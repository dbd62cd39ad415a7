import canonicalize from 'canonicalize';

/** The value is not representable in RFC 8785 canonical JSON (NaN, Infinity, lone surrogates, cycles). */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
}

/**
 * RFC 8785 (JCS) canonical JSON of a JSON value: keys sorted by UTF-16 code units, no whitespace,
 * ECMAScript number and string serialisation. The same value always gives the same bytes, so a digest
 * or signature over them can be checked by anyone who re-canonicalises the parsed document.
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (error) {
    throw new CanonicalJsonError(error instanceof Error ? error.message : 'not canonicalisable');
  }
  if (text === undefined) throw new CanonicalJsonError('value has no JSON form');
  return text;
}

/** UTF-8 bytes of {@link canonicalJson}. */
export function canonicalJsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}
