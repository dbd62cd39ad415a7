import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Credentials the embedded stack's members share, each in its own owner-only file. */
export interface StackSecrets {
  /** node-sim's outbox → redemption-handoff intake. */
  handoffIntake: string;
  /** redemption-handoff → redeemer-sim. */
  redeemer: string;
  /** verifier → the remote signer that pays for its sessions. */
  verifierSigner: string;
  /** The verifier's Ed25519 report-signing key (64 hex characters). */
  verifierKey: string;
  /** The management APIs' `admin` token (every service of the stack accepts it). */
  adminToken: string;
  /** The management APIs' `read` token. */
  readToken: string;
  /** Redis's password, read by the services from this file. */
  redisPassword: string;
  /** Redis's configuration file holding `requirepass`, so the password is never on a command line. */
  redisConfig: string;
}

/**
 * Paths of the stack's shared credentials under `<dataDir>/secrets`, generating each file (48 hex
 * characters, mode 0600, no newline) the first time. Only the paths are ever passed around or printed.
 */
export function ensureStackSecrets(dataDir: string): StackSecrets {
  const folder = join(dataDir, 'secrets');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = (name: string, bytes = 24) => {
    const path = join(folder, name);
    if (!existsSync(path))
      writeFileSync(path, randomBytes(bytes).toString('hex'), { mode: 0o600, flag: 'wx' });
    return path;
  };
  const redisPassword = file('redis-password');
  const redisConfig = join(folder, 'redis.conf');
  writeFileSync(redisConfig, `requirepass ${readFileSync(redisPassword, 'utf8')}\n`, { mode: 0o600 });
  return {
    handoffIntake: file('handoff-intake'),
    redeemer: file('redeemer'),
    adminToken: file('admin-token'),
    readToken: file('read-token'),
    redisPassword,
    redisConfig,
    verifierSigner: file('verifier-signer'),
    verifierKey: file('verifier-key', 32),
  };
}
