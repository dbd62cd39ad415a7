import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretScrubber } from '../logging/secret-scrubber';
import { readSecretFile, readSecretFileText, SecretFileError } from './secret-file';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secret-file-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, contents: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, contents);
  return path;
}

describe('readSecretFile', () => {
  it('returns the exact bytes, trailing newline and spaces included', () => {
    const bytes = Buffer.from([0x20, 0x73, 0x33, 0x63, 0x72, 0x65, 0x74, 0x00, 0xff, 0x0a]);
    expect(readSecretFile(file('bytes', bytes)).equals(bytes)).toBe(true);
    expect(readSecretFileText(file('text', ' bootstrap-secret\n'))).toBe(' bootstrap-secret\n');
  });

  it('names the path and the reason, never the contents', () => {
    const missing = join(dir, 'missing');
    expect(() => readSecretFile(missing)).toThrow(SecretFileError);
    expect(() => readSecretFile(missing)).toThrow(`cannot use secret file ${missing}: no such file (ENOENT)`);
    expect(() => readSecretFile(dir)).toThrow('EISDIR');
    expect(() => readSecretFile(file('empty', ''))).toThrow('the file is empty');
    const invalid = file('invalid', Buffer.from([0x61, 0x62, 0xc3, 0x28, 0x63, 0x64, 0x65, 0x66, 0x67]));
    expect(() => readSecretFileText(invalid)).toThrow('not valid UTF-8');
  });

  it('registers the value with a scrubber when given one', () => {
    const secrets = createSecretScrubber();
    readSecretFileText(file('registered', 'registered-secret-value'), { scrubber: secrets });
    expect(secrets.scrub('x registered-secret-value y')).toBe('x [secret] y');
    expect(() => readSecretFile(file('short', 'abc'), { scrubber: secrets })).toThrow('too short');
  });
});
