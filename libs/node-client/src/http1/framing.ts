import { HttpProtocolError } from './protocol-error';

/** The largest body read (a Node answer is a few KB; a trickle segment at most a few MB). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The headers that decide framing and reuse, gathered while the head is split into lines. */
export interface Framing {
  transferEncoding: string | undefined;
  contentLength: string | undefined;
  connection: string | undefined;
}

const joinValue = (known: string | undefined, value: string): string =>
  known === undefined ? value : `${known},${value}`;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/u;

/**
 * The header lines of a response head (from `statusEnd`, the status line's CRLF, or -1 when the head
 * is the status line alone): names lower-cased, in order, and the framing headers joined.
 */
export function headerLines(
  head: string,
  statusEnd: number,
): { headers: Array<readonly [string, string]>; framing: Framing } {
  const framing: Framing = { transferEncoding: undefined, contentLength: undefined, connection: undefined };
  const headers: Array<readonly [string, string]> = [];
  for (let start = statusEnd + 2; statusEnd !== -1 && start <= head.length;) {
    const lineEnd = head.indexOf('\r\n', start);
    const end = lineEnd === -1 ? head.length : lineEnd;
    const colon = head.indexOf(':', start);
    // No colon, an empty name, a folded line (leading space) or a space before the colon.
    const name = colon > start && colon < end ? head.slice(start, colon) : '';
    if (!TOKEN.test(name)) throw new HttpProtocolError('bad header line');
    const lower = name.toLowerCase();
    const value = head.slice(colon + 1, end).trim();
    headers.push([lower, value]);
    if (lower === 'transfer-encoding') framing.transferEncoding = joinValue(framing.transferEncoding, value);
    else if (lower === 'content-length') framing.contentLength = joinValue(framing.contentLength, value);
    else if (lower === 'connection') framing.connection = joinValue(framing.connection, value);
    start = end + 2;
  }
  return { headers, framing };
}

/** How a body is delimited. */
export type BodyMode = { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'until-close' };

const DIGITS = /^\d{1,15}$/u;

function contentLengthOf(value: string): number {
  if (DIGITS.test(value)) return Number(value);
  // Repeats are allowed when they agree ("5, 5"), as node:http allows them.
  const distinct = new Set(value.split(',').map((part) => part.trim()));
  const [only] = distinct;
  if (distinct.size !== 1 || only === undefined || !DIGITS.test(only))
    throw new HttpProtocolError('bad Content-Length');
  return Number(only);
}

/** How the body is delimited (RFC 9112 §6.3), for a response to a GET or POST. */
export function bodyModeOf(status: number, framing: Framing): BodyMode {
  const { transferEncoding, contentLength } = framing;
  if (status === 204 || status === 304) return { kind: 'length', remaining: 0 };
  if (transferEncoding !== undefined) {
    // Both framings at once is how responses are smuggled: refuse rather than pick one.
    if (contentLength !== undefined) throw new HttpProtocolError('both Transfer-Encoding and Content-Length');
    if (transferEncoding.trim().toLowerCase() !== 'chunked') {
      throw new HttpProtocolError('unsupported Transfer-Encoding');
    }
    return { kind: 'chunked' };
  }
  if (contentLength === undefined) return { kind: 'until-close' };
  const remaining = contentLengthOf(contentLength);
  if (remaining > MAX_BODY_BYTES) throw new HttpProtocolError('body too large');
  return { kind: 'length', remaining };
}
