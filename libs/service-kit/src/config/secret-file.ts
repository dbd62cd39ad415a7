import { readFileSync } from 'node:fs';
import type { SecretScrubber } from '../logging/secret-scrubber';

/** Reading a secret file failed; the message names the path and the reason, never the contents. */
export class SecretFileError extends Error {
  override readonly name = 'SecretFileError';
  readonly path: string;
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(`cannot use secret file ${path}: ${reason}`, options);
    this.path = path;
  }
}

/** Options of {@link readSecretFile}. */
export interface ReadSecretFileOptions {
  /** When given, the value is registered so it can never appear in log output. */
  scrubber?: SecretScrubber;
}

/**
 * Reads a secret file's exact bytes: no trimming, a trailing newline is kept (Node compares a
 * bootstrap secret byte for byte, trailing newline included, so we must send what the file holds).
 * Throws {@link SecretFileError} when the file is missing, unreadable or empty.
 */
export function readSecretFile(path: string, options: ReadSecretFileOptions = {}): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SecretFileError(path, describe(code), { cause: error });
  }
  if (bytes.length === 0) throw new SecretFileError(path, 'the file is empty');
  try {
    options.scrubber?.register(bytes);
  } catch (error) {
    throw new SecretFileError(path, 'the secret is too short to be kept out of logs', { cause: error });
  }
  return bytes;
}

/**
 * {@link readSecretFile} decoded as UTF-8, for secrets sent as text (an `Authorization` header).
 * Throws {@link SecretFileError} when the bytes are not valid UTF-8.
 */
export function readSecretFileText(path: string, options: ReadSecretFileOptions = {}): string {
  const bytes = readSecretFile(path, options);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new SecretFileError(path, 'the file is not valid UTF-8', { cause: error });
  }
}

function describe(code: string): string {
  switch (code) {
    case 'ENOENT':
      return 'no such file (ENOENT)';
    case 'EACCES':
      return 'permission denied (EACCES)';
    case 'EISDIR':
      return 'it is a directory (EISDIR)';
    default:
      return `read failed (${code})`;
  }
}
