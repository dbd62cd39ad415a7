import { describe, expect, it } from '@jest/globals';
import { HttpProtocolError, ResponseParser, type ParsedResponse } from './response-parser';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/** Feeds `wire` in pieces of `step` bytes (a copy each time, as a reused read buffer would be). */
function parse(wire: Buffer, step = wire.length): ParsedResponse | undefined {
  const parser = new ResponseParser();
  for (let offset = 0; offset < wire.length; offset += step) {
    const result = parser.feed(Buffer.from(wire.subarray(offset, offset + step)));
    if (result !== undefined) return result;
  }
  return undefined;
}

const fails = (wire: string, message: string): void => {
  expect(() => parse(bytes(wire))).toThrow(HttpProtocolError);
  expect(() => parse(bytes(wire))).toThrow(message);
};

describe('ResponseParser', () => {
  const sized = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}';
  const chunked =
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nLp-Trickle-Seq: 4\r\n\r\n' +
    '3;ext=1\r\n{"a\r\n4\r\n":1}\r\n0\r\nTrailer: x\r\n\r\n';

  it('reads a Content-Length body and the headers, lower-cased, in order', () => {
    expect(parse(bytes(sized))).toEqual({
      status: 200,
      headers: [
        ['content-type', 'application/json'],
        ['content-length', '7'],
      ],
      text: '{"a":1}',
      reusable: true,
    });
  });

  it('gives the same response however the bytes are split', () => {
    for (const wire of [sized, chunked]) {
      const whole = parse(bytes(wire));
      for (const step of [1, 2, 3, 5, 8, 13]) expect(parse(bytes(wire), step)).toEqual(whole);
    }
  });

  it('decodes a chunked body, ignoring chunk extensions and trailers', () => {
    expect(parse(bytes(chunked))).toMatchObject({ status: 200, text: '{"a":1}', reusable: true });
  });

  it('decodes UTF-8 split across reads', () => {
    const body = Buffer.from('{"name":"café ☕"}', 'utf8');
    const wire = Buffer.concat([bytes(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
    expect(parse(wire, 1)?.text).toBe('{"name":"café ☕"}');
  });

  it('completes at once on an empty body (204, or Content-Length 0)', () => {
    expect(parse(bytes('HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n'))).toMatchObject({
      status: 204,
      text: '',
    });
    expect(parse(bytes('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'))).toMatchObject({ reusable: true });
  });

  it('skips interim 1xx answers', () => {
    const wire = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n' + sized;
    expect(parse(bytes(wire))).toMatchObject({ status: 200, text: '{"a":1}' });
  });

  it('does not reuse a connection the server closes, HTTP/1.0, or one with bytes past the response', () => {
    const close = 'HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 1\r\n\r\nx';
    expect(parse(bytes(close))?.reusable).toBe(false);
    expect(parse(bytes('HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx'))?.reusable).toBe(false);
    expect(parse(bytes(`${sized}HTTP/1.1`))?.reusable).toBe(false);
  });

  it('reads a body without framing up to the close, never reusing the connection', () => {
    const parser = new ResponseParser();
    expect(parser.feed(bytes('HTTP/1.1 200 OK\r\n\r\npart one, '))).toBeUndefined();
    expect(parser.feed(bytes('part two'))).toBeUndefined();
    expect(parser.finish()).toMatchObject({ status: 200, text: 'part one, part two', reusable: false });
  });

  it('says whether any byte arrived, and refuses a close before the response ended', () => {
    const parser = new ResponseParser();
    expect(parser.started).toBe(false);
    parser.feed(bytes('HTTP/1.1 200 OK\r\nContent-Le'));
    expect(parser.started).toBe(true);
    expect(() => parser.finish()).toThrow('connection closed before the response ended');
  });

  it('accepts repeated Content-Length values that agree', () => {
    const wire = 'HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\nContent-Length: 1\r\n\r\nx';
    expect(parse(bytes(wire))?.text).toBe('x');
  });

  it('refuses ambiguous or malformed framing', () => {
    fails('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx', 'bad Content-Length');
    fails('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'bad Content-Length');
    fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n', 'both');
    fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', 'unsupported Transfer-Encoding');
    fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'bad chunk size');
    fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n', 'chunk longer than its size');
    fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\nx', 'bare LF');
  });

  it('refuses a malformed head', () => {
    fails('HTTP/2 200 OK\r\n\r\n', 'bad status line');
    fails('HTTP/1.1 20 OK\r\n\r\n', 'bad status line');
    fails('HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n', 'bad header line');
    fails('HTTP/1.1 200 OK\r\nName : value\r\n\r\n', 'bad header line');
    fails('HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n', 'bad header line');
    fails('HTTP/1.1 101 Switching Protocols\r\n\r\n', 'unexpected protocol switch');
    fails(`HTTP/1.1 200 OK\r\nX: ${'y'.repeat(17 * 1024)}`, 'header section too large');
  });
});
