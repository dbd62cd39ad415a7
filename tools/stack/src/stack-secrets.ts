import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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
  return {
    handoffIntake: file('handoff-intake'),
    redeemer: file('redeemer'),
    verifierSigner: file('verifier-signer'),
    verifierKey: file('verifier-key', 32),
  };
}
