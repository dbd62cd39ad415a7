/** Where a plain-HTTP request goes, parsed once per URL. */
export interface PlainTarget {
  /** For `net.connect` (an IPv6 literal without its brackets). */
  host: string;
  port: number;
  /** The pool key: one set of idle connections per origin. */
  origin: string;
  /** `Host` header value. */
  hostHeader: string;
  /** Path and query. */
  path: string;
  /** Basic credentials from the URL's userinfo, if any, as a header value. */
  authorization: string | undefined;
}

/** Parses an `http:` URL into a {@link PlainTarget}. */
export function plainTargetOf(url: string): PlainTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:') throw new TypeError(`not an http: URL: ${parsed.protocol}`);
  const port = parsed.port === '' ? 80 : Number(parsed.port);
  const host = parsed.hostname.replace(/^\[(.*)\]$/u, '$1');
  const userinfo =
    parsed.username === '' && parsed.password === ''
      ? undefined
      : `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  return {
    host,
    port,
    origin: `${parsed.hostname}:${port}`,
    hostHeader: parsed.host,
    path: `${parsed.pathname}${parsed.search}`,
    authorization: userinfo === undefined ? undefined : `Basic ${Buffer.from(userinfo).toString('base64')}`,
  };
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/u;
// What node:http accepts in a header value: tab, visible ASCII and the rest of Latin-1.
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/u;

/** A header that would break the request (CR or LF in it, a non-token name): nothing is sent. */
export class InvalidHeaderError extends TypeError {
  readonly code = 'ERR_INVALID_HTTP_TOKEN';
  constructor(readonly headerName: string) {
    // The name only: the value may be a credential.
    super(`invalid header ${TOKEN.test(headerName) ? headerName : '(name)'}`);
    this.name = 'InvalidHeaderError';
  }
}

/**
 * The request line and headers of one exchange, ending in the blank line. Header values go out as
 * Latin-1, byte for byte; the caller writes the head in Latin-1 so a secret's bytes are unchanged.
 */
export function requestHead(
  method: string,
  target: PlainTarget,
  headers: Record<string, string> | undefined,
  bodyBytes: number | undefined,
): string {
  let head = `${method} ${target.path} HTTP/1.1\r\nHost: ${target.hostHeader}\r\n`;
  let authorized = false;
  for (const name in headers) {
    const value = headers[name] ?? '';
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new InvalidHeaderError(name);
    const lower = name.toLowerCase();
    // The transport frames the body itself; a caller's framing headers would contradict it.
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'host') continue;
    if (lower === 'authorization') authorized = true;
    head += `${name}: ${value}\r\n`;
  }
  if (!authorized && target.authorization !== undefined) head += `Authorization: ${target.authorization}\r\n`;
  if (bodyBytes !== undefined) head += `Content-Length: ${bodyBytes}\r\n`;
  return `${head}\r\n`;
}
