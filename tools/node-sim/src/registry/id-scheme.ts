import { randomBytes } from 'node:crypto';

/** What a generated value names: Node draws each kind differently in its newer releases. */
export type IdKind = 'runner' | 'session' | 'secret' | 'proxy' | 'channel';

/** How the simulator draws ids, credentials, tokens and channel names. */
export type IdFormat = 'hex' | 'base32';

export const ID_FORMATS: readonly IdFormat[] = ['hex', 'base32'];

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32 without padding, lower-cased (Go's `base32.StdEncoding.WithPadding(NoPadding)`). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Node's `randomID` (orchestrator/registry.go@2a57606d): 16 random bytes, hex, for every kind.
 */
function hexId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Node's `randomID(n)` / `randomIDWithPrefix` (orchestrator/registry.go@e6ed85a9): runner ids
 * `runner_` + 5 bytes, session ids `session_` + 10 bytes, credentials and session tokens 32 bytes
 * (52 characters), proxy ids 10 bytes, all lower-case base32. Channel names and payment manifest ids
 * were not read at that commit; the simulator draws them as proxy ids (10 bytes).
 */
function base32Id(kind: IdKind): string {
  switch (kind) {
    case 'runner':
      return `runner_${base32(randomBytes(5))}`;
    case 'session':
      return `session_${base32(randomBytes(10))}`;
    case 'secret':
      return base32(randomBytes(32));
    case 'proxy':
    case 'channel':
      return base32(randomBytes(10));
  }
}

/** The generator of a format. */
export function idGenerator(format: IdFormat): (kind: IdKind) => string {
  return format === 'base32' ? base32Id : hexId;
}
