import { bodyModeOf, headerLines, MAX_BODY_BYTES } from './framing';
import { HttpProtocolError } from './protocol-error';

export { HttpProtocolError } from './protocol-error';

/** One response read in full. */
export interface ParsedResponse {
  status: number;
  /** Header lines in arrival order, names lower-cased. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
  text: string;
  /** The connection may carry the next request: HTTP/1.1, no `Connection: close`, a delimited body. */
  reusable: boolean;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close';

const MAX_HEAD_BYTES = 16 * 1024;
const MAX_LINE_BYTES = 4 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/u;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,8})[ \t]*(?:;[^\r\n]*)?$/u;

/**
 * Reads one HTTP/1.1 response from the bytes of a connection, fed as they arrive. Strict: anything
 * ambiguous (a malformed status line or header, two framings, an unsupported transfer coding, an
 * oversized head) throws {@link HttpProtocolError}, and the caller drops the connection. The bytes
 * fed are copied when kept, so the caller may reuse its read buffer.
 */
export class ResponseParser {
  private state: State = 'head';
  private pending: Buffer | undefined;
  private line = '';
  private status = 0;
  private headers: Array<readonly [string, string]> = [];
  private keepAlive = false;
  private remaining = 0;
  private parts: Buffer[] = [];
  private size = 0;
  private direct: string | undefined;
  private done = false;

  /** Feeds `bytes`; returns the response once complete. Bytes past its end make it non-reusable. */
  feed(bytes: Buffer): ParsedResponse | undefined {
    let offset = 0;
    while (offset < bytes.length) {
      offset = this.step(bytes, offset);
      if (this.done) {
        return this.result(offset === bytes.length);
      }
    }
    return undefined;
  }

  /** The connection ended: the response, if its body runs to the close; otherwise a protocol error. */
  finish(): ParsedResponse {
    if (this.state !== 'until-close')
      throw new HttpProtocolError('connection closed before the response ended');
    return { ...this.result(false), reusable: false };
  }

  /** Whether any byte of a response arrived (a reused connection that closes before is just stale). */
  get started(): boolean {
    return this.state !== 'head' || this.pending !== undefined;
  }

  private step(bytes: Buffer, offset: number): number {
    switch (this.state) {
      case 'head':
        return this.readHead(bytes, offset);
      case 'length':
        return this.readLength(bytes, offset);
      case 'chunk-size':
      case 'chunk-end':
      case 'trailers':
        return this.readLine(bytes, offset);
      case 'chunk-data':
        return this.readChunkData(bytes, offset);
      case 'until-close':
        this.keep(bytes, offset, bytes.length);
        return bytes.length;
    }
  }

  private readHead(bytes: Buffer, offset: number): number {
    const fresh = bytes.subarray(offset);
    const joined = this.pending === undefined ? fresh : Buffer.concat([this.pending, fresh]);
    const end = joined.indexOf(HEAD_END);
    if (end === -1) {
      if (joined.length > MAX_HEAD_BYTES) throw new HttpProtocolError('header section too large');
      this.pending = Buffer.from(joined);
      return bytes.length;
    }
    if (end > MAX_HEAD_BYTES) throw new HttpProtocolError('header section too large');
    const consumed = end + HEAD_END.length - (this.pending?.length ?? 0);
    this.pending = undefined;
    this.parseHead(joined.toString('latin1', 0, end));
    return offset + consumed;
  }

  private parseHead(head: string): void {
    const firstEnd = head.indexOf('\r\n');
    const match = STATUS_LINE.exec(firstEnd === -1 ? head : head.slice(0, firstEnd));
    if (match === null) throw new HttpProtocolError('bad status line');
    const status = Number(match[2]);
    const { headers, framing } = headerLines(head, firstEnd);
    // An interim answer (100 Continue, 103 Early Hints): the real one follows on the same bytes.
    if (status >= 100 && status < 200) {
      if (status === 101) throw new HttpProtocolError('unexpected protocol switch');
      return;
    }
    this.status = status;
    this.headers = headers;
    const connection = framing.connection?.toLowerCase() ?? '';
    this.keepAlive = match[1] === '1' && !/(?:^|,)\s*close\s*(?:,|$)/u.test(connection);
    const mode = bodyModeOf(status, framing);
    if (mode.kind === 'length') {
      this.remaining = mode.remaining;
      this.state = 'length';
      this.done = mode.remaining === 0;
    } else if (mode.kind === 'chunked') {
      this.state = 'chunk-size';
    } else {
      this.keepAlive = false;
      this.state = 'until-close';
    }
  }

  private readLength(bytes: Buffer, offset: number): number {
    const end = Math.min(bytes.length, offset + this.remaining);
    // The common case, a whole body in one read: decode it straight from the caller's buffer.
    if (this.parts.length === 0 && end - offset === this.remaining) {
      this.direct = bytes.toString('utf8', offset, end);
    } else {
      this.keep(bytes, offset, end);
    }
    this.remaining -= end - offset;
    this.done = this.remaining === 0;
    return end;
  }

  private readChunkData(bytes: Buffer, offset: number): number {
    const end = Math.min(bytes.length, offset + this.remaining);
    this.keep(bytes, offset, end);
    this.remaining -= end - offset;
    if (this.remaining === 0) this.state = 'chunk-end';
    return end;
  }

  /** Reads up to the next CRLF of a chunk-size line, a chunk's end or a trailer line. */
  private readLine(bytes: Buffer, offset: number): number {
    const lf = bytes.indexOf(0x0a, offset);
    const end = lf === -1 ? bytes.length : lf + 1;
    this.line += bytes.toString('latin1', offset, end);
    if (this.line.length > MAX_LINE_BYTES) throw new HttpProtocolError('line too long');
    if (lf === -1) return end;
    if (!this.line.endsWith('\r\n')) throw new HttpProtocolError('bare LF');
    const line = this.line.slice(0, -2);
    this.line = '';
    this.onLine(line);
    return end;
  }

  private onLine(line: string): void {
    if (this.state === 'chunk-end') {
      if (line !== '') throw new HttpProtocolError('chunk longer than its size');
      this.state = 'chunk-size';
    } else if (this.state === 'chunk-size') {
      const match = CHUNK_SIZE.exec(line);
      if (match === null) throw new HttpProtocolError('bad chunk size');
      this.remaining = Number.parseInt(match[1] ?? '', 16);
      if (this.size + this.remaining > MAX_BODY_BYTES) throw new HttpProtocolError('body too large');
      this.state = this.remaining === 0 ? 'trailers' : 'chunk-data';
    } else if (line === '') {
      this.done = true;
    }
  }

  private keep(bytes: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.size += end - start;
    if (this.size > MAX_BODY_BYTES) throw new HttpProtocolError('body too large');
    this.parts.push(Buffer.copyBytesFrom(bytes, start, end - start));
  }

  private result(exact: boolean): ParsedResponse {
    const text =
      this.direct ??
      (this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts))?.toString('utf8') ??
      '';
    return { status: this.status, headers: this.headers, text, reusable: this.keepAlive && exact };
  }
}
