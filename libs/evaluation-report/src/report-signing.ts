import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { EvaluationReport, SignedEvaluationReport } from '@sandbox/protocol';
import { EvaluationReportSchema, SignedEvaluationReportSchema } from '@sandbox/protocol';
import { canonicalJsonBytes } from './canonical-json';

/** A verifier's Ed25519 signing key: 32 secret bytes and the public key derived from them. */
export interface ReportSigningKey {
  readonly secretKey: Uint8Array;
  readonly publicKeyHex: string;
}

/** Derives the signing key from its 32-byte seed (hex or bytes). */
export function reportSigningKey(secret: Uint8Array | string): ReportSigningKey {
  const secretKey = typeof secret === 'string' ? hexToBytes(secret) : secret;
  if (secretKey.length !== 32) throw new Error('an Ed25519 secret key is 32 bytes');
  return { secretKey, publicKeyHex: bytesToHex(ed25519.getPublicKey(secretKey)) };
}

/** sha256 of the report's RFC 8785 canonical JSON, hex. */
export function reportDigest(report: EvaluationReport): string {
  return bytesToHex(sha256(canonicalJsonBytes(report)));
}

/**
 * Validates the report strictly, checks that it names this key, and signs its canonical bytes.
 * @throws ZodError when the report does not match the v1 schema
 */
export function signReport(report: EvaluationReport, key: ReportSigningKey): SignedEvaluationReport {
  const parsed = EvaluationReportSchema.parse(report);
  if (parsed.verifier.publicKey !== key.publicKeyHex)
    throw new Error('the report names another verifier key than the one signing it');
  const bytes = canonicalJsonBytes(parsed);
  return {
    report: parsed,
    integrity: {
      canonicalization: 'RFC8785',
      digestAlgorithm: 'sha256',
      digest: bytesToHex(sha256(bytes)),
      signatureAlgorithm: 'Ed25519',
      signatureValue: bytesToHex(ed25519.sign(bytes, key.secretKey)),
    },
  };
}

/** Why a report failed verification; `ok` when it passed. */
export type ReportCheck =
  | { ok: true; report: SignedEvaluationReport; digest: string; publicKey: string }
  | { ok: false; problem: 'schema' | 'digest' | 'signature' | 'untrusted-key'; detail: string };

/**
 * Verifies a report offline: v1 schema, digest of the canonical JSON, Ed25519 signature by the key in
 * its header, and, when `trustedKeys` is given, that the key is one of them.
 */
export function verifyReport(document: unknown, trustedKeys?: readonly string[]): ReportCheck {
  const parsed = SignedEvaluationReportSchema.safeParse(document);
  if (!parsed.success) return { ok: false, problem: 'schema', detail: parsed.error.issues[0]?.message ?? '' };
  const { report, integrity } = parsed.data;
  const bytes = canonicalJsonBytes(report);
  const digest = bytesToHex(sha256(bytes));
  if (digest !== integrity.digest)
    return { ok: false, problem: 'digest', detail: `canonical digest is ${digest}` };
  const publicKey = report.verifier.publicKey;
  let valid = false;
  try {
    valid = ed25519.verify(hexToBytes(integrity.signatureValue), bytes, hexToBytes(publicKey));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, problem: 'signature', detail: 'Ed25519 signature does not verify' };
  if (trustedKeys && !trustedKeys.includes(publicKey))
    return { ok: false, problem: 'untrusted-key', detail: `key ${publicKey} is not trusted` };
  return { ok: true, report: parsed.data, digest, publicKey };
}
