import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSecretScrubber, SecretFileError } from '@sandbox/service-kit';
import { BootstrapSecretError, bootstrapHeaderValue, loadBootstrapSecret } from './bootstrap-secret';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adapter-secret-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bootstrap secret', () => {
  it('sends the exact bytes, one character per byte', () => {
    expect(bootstrapHeaderValue(Buffer.from('s3cret value'))).toBe('s3cret value');
    const bytes = Buffer.from('pässwort-123', 'utf8');
    expect(Buffer.from(bootstrapHeaderValue(bytes), 'latin1').equals(bytes)).toBe(true);
  });

  it('refuses what an HTTP header cannot carry, without showing the secret', () => {
    const cases = [
      'secret-value\n',
      'secret-value\r\n',
      ' secret-value',
      'secret-value\t',
      'sec\u0000ret-value',
    ];
    for (const text of cases) {
      const error = (() => {
        try {
          bootstrapHeaderValue(Buffer.from(text));
        } catch (caught) {
          return caught as Error;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(BootstrapSecretError);
      expect(error?.message).not.toContain('secret-value');
    }
    expect(() => bootstrapHeaderValue(Buffer.from('secret-value\n'))).toThrow('trailing newline');
  });

  it('registers the secret with the scrubber and re-reads a rotated file, at most once per interval', async () => {
    const file = join(dir, 'secret');
    await writeFile(file, 'first-secret-value');
    let now = 0;
    const secrets = createSecretScrubber();
    const errors: unknown[] = [];
    const secret = loadBootstrapSecret(file, {
      secrets,
      now: () => now,
      minReloadIntervalMs: 1_000,
      onReloadError: (e) => errors.push(e),
    });
    expect(secret.value()).toBe('first-secret-value');
    expect(secrets.scrub('a first-secret-value b')).toBe('a [secret] b');
    await writeFile(file, 'second-secret-value');
    secret.reload();
    expect(secret.value()).toBe('first-secret-value');
    now = 1_000;
    secret.reload();
    expect(secret.value()).toBe('second-secret-value');
    await writeFile(file, 'broken-secret\n');
    now = 2_000;
    secret.reload();
    expect(secret.value()).toBe('second-secret-value');
    expect(errors).toHaveLength(1);
  });

  it('fails at start-up on a missing or empty file', async () => {
    const secrets = createSecretScrubber();
    expect(() => loadBootstrapSecret(join(dir, 'missing'), { secrets, now: Date.now })).toThrow(
      SecretFileError,
    );
    await writeFile(join(dir, 'empty'), '');
    expect(() => loadBootstrapSecret(join(dir, 'empty'), { secrets, now: Date.now })).toThrow(
      SecretFileError,
    );
  });
});
