import { describe, expect, it } from '@jest/globals';
import {
  isSecretKey,
  REDACTED,
  redactDeep,
  redactJsonText,
  redactLine,
  redactUrl,
  redactUrlCredentials,
  WITHHELD,
} from './redact';

describe('redaction helpers', () => {
  it('knows protocol secret names and credential headers, case-insensitively', () => {
    for (const key of [
      'authorization',
      'Authorization',
      'recipientRand',
      'SESSION_TOKEN',
      'cookie',
      'set-cookie',
      'token',
      'apiKey',
      'API_KEY',
      'privateKey',
      'password',
    ]) {
      expect(isSecretKey(key)).toBe(true);
    }
    for (const key of ['runnerId', 'capacity', 'authorized', 'tokens', 'tokenId'])
      expect(isSecretKey(key)).toBe(false);
  });

  it('redacts deep plain values and leaves the input untouched', () => {
    const input = { a: [{ seed: 's' }], b: { c: { password: 'p', d: 1 } } };
    expect(redactDeep(input, () => 'error')).toEqual({
      a: [{ seed: REDACTED }],
      b: { c: { password: REDACTED, d: 1 } },
    });
    expect(input.a[0]?.seed).toBe('s');
  });

  it('redacts secret query parameters of a request target', () => {
    expect(redactUrl('/v1/x?session_token=abc&app=demo')).toBe('/v1/x?session_token=%5Bredacted%5D&app=demo');
    expect(redactUrl('/v1/x?app=demo')).toBe('/v1/x?app=demo');
    expect(redactUrl('/v1/x')).toBe('/v1/x');
  });

  it('redacts the credentials of URLs inside any text', () => {
    expect(redactUrlCredentials('connect redis://:pw-1@127.0.0.1:6390/0 failed')).toBe(
      'connect redis://[redacted]@127.0.0.1:6390/0 failed',
    );
    expect(redactUrlCredentials('"https://user:p%40ss@host/x" and http://host/a@b')).toBe(
      '"https://[redacted]@host/x" and http://host/a@b',
    );
  });

  it('redacts secret fields of JSON held in a string, whole or embedded in text, at any escape depth', () => {
    expect(redactJsonText('{"user":"u","password":"p1","deep":{"apiKey":1}}')).toBe(
      '{"user":"u","password":"[redacted]","deep":{"apiKey":"[redacted]"}}',
    );
    expect(redactJsonText('body {"token": "t1", "ok": true} and "privateKey":"k\\"x"')).toBe(
      'body {"token":"[redacted]","ok":true} and "privateKey":"[redacted]"',
    );
    expect(redactJsonText('{"inner":"{\\"password\\":\\"p2\\"}"}')).not.toContain('p2');
    expect(redactJsonText('no secrets here')).toBe('no secrets here');
    expect(redactJsonText('cut short {"password":"p5')).toBe('cut short {"password":"[redacted]"');
    expect(redactJsonText('escaped \\"password\\":\\"p6\\" without its document')).toBe(WITHHELD);
    expect(redactDeep({ body: '{"password":"p3"}' }, () => 'error')).toEqual({
      body: '{"password":"[redacted]"}',
    });
  });

  it('re-redacts a finished line whose string fields hold escaped JSON with a secret', () => {
    const line = `${JSON.stringify({ msg: JSON.stringify({ password: 'p4' }) })}\n`;
    expect(redactLine(line)).not.toContain('p4');
    expect(redactLine(line)).toContain('[redacted]');
  });

  it('re-redacts a finished line only when a secret key still holds a value', () => {
    const clean = '{"level":"info","authorization":"[redacted]","msg":"ok"}\n';
    expect(redactLine(clean)).toBe(clean);
    expect(redactLine('{"a":{"Sig":"0xabc"},"msg":"m"}\n')).toBe('{"a":{"Sig":"[redacted]"},"msg":"m"}\n');
    expect(redactLine('{"sig":"broken\n')).not.toContain('broken');
  });
});
