import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { bearerToken } from '@sandbox/service-kit';
import { CliError } from './cli';
import { readHandoffToken, readSecretBytes } from './secret-files';

const dir = mkdtempSync(join(tmpdir(), 'node-sim-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, contents: string): string {
  const path = join(dir, name);
  writeFileSync(path, contents, 'latin1');
  return path;
}

describe('readHandoffToken', () => {
  it.each([
    ['no line break', 'handoff-secret'],
    ['echo’s newline', 'handoff-secret\n'],
    ['CRLF', 'handoff-secret\r\n'],
    ['several line breaks', 'handoff-secret\n\r\n\n'],
    ['other trailing whitespace', 'handoff secret \t\n'],
  ])('drops trailing CR/LF as redemption-handoff does (%s)', (name, contents) => {
    const token = readHandoffToken(file(name, contents));
    expect(token).toBe(bearerToken(contents));
    expect(token).toBe(contents.replace(/[\r\n]+$/u, ''));
  });

  it.each([
    ['missing', join(dir, 'missing'), /cannot read/u],
    ['empty', file('empty', ''), /is empty/u],
    ['only line breaks', file('blank', '\r\n\n'), /holds only line breaks/u],
    ['split by a line break', file('split', 'hunter2\nhunter3\n'), /line break inside/u],
  ])('refuses a file that is %s', (_name, path, message) => {
    expect(() => readHandoffToken(path)).toThrow(CliError);
    expect(() => readHandoffToken(path)).toThrow(message);
  });

  it('never quotes the secret in its errors', () => {
    expect(() => readHandoffToken(file('quoted', 'hunter2\nhunter3'))).not.toThrow(/hunter/u);
    expect(() => readHandoffToken(file('quoted', 'hunter2\nhunter3'))).toThrow(CliError);
  });
});

describe('readSecretBytes', () => {
  it('keeps the exact bytes, trailing newline included (the bootstrap secret, as Node compares it)', () => {
    expect(readSecretBytes('bootstrap-secret-file', file('boot', 'boot\n'))).toEqual(Buffer.from('boot\n'));
  });
});
