import { readFileSync } from 'node:fs';
import { CliError } from './cli';

/**
 * A secret file's exact bytes, as Node reads its bootstrap secret: compared byte for byte, so a
 * trailing newline is part of the secret. Throws {@link CliError} naming the flag and path (never the
 * contents) when the file is unreadable or empty.
 */
export function readSecretBytes(flag: string, path: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new CliError(`--${flag}: cannot read ${path}`);
  }
  if (bytes.length === 0) throw new CliError(`--${flag}: ${path} is empty`);
  return bytes;
}

/**
 * The hand-off bearer token: the secret file's text without trailing CR/LF, the same rule as
 * `bearerToken` of `@sandbox/service-kit`, which apps/redemption-handoff applies to its copy of the
 * file (`echo secret > file` writes a newline that a header cannot carry). Bytes map to header bytes
 * one to one (latin1). A file with nothing but line breaks, or a line break inside the token, can never
 * authenticate and is refused at startup.
 */
export function readHandoffToken(path: string): string {
  const flag = 'handoff-secret-file';
  const token = readSecretBytes(flag, path)
    .toString('latin1')
    .replace(/[\r\n]+$/u, '');
  if (token.length === 0) throw new CliError(`--${flag}: ${path} holds only line breaks`);
  if (/[\r\n\0]/u.test(token)) throw new CliError(`--${flag}: ${path} has a line break inside the secret`);
  return token;
}
