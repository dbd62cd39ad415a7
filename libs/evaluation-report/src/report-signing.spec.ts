import { createHash, createPrivateKey, sign } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { canonicalJson } from './canonical-json';
import { reportDigest, reportSigningKey, signReport, verifyReport } from './report-signing';
import { RFC8032_PUBLIC_KEY, RFC8032_SECRET_KEY, sampleEvaluationReport } from '@sandbox/testing';

const key = reportSigningKey(RFC8032_SECRET_KEY);

describe('report signing', () => {
  it('derives the RFC 8032 test-1 public key', () => {
    expect(key.publicKeyHex).toBe(RFC8032_PUBLIC_KEY);
  });

  it('digests the canonical JSON with sha256 and signs it deterministically (fixed vectors)', () => {
    const signed = signReport(sampleEvaluationReport(), key);
    const canonical = canonicalJson(sampleEvaluationReport());
    expect(canonical.startsWith('{"download":{"bytes":125000000,')).toBe(true);
    expect(signed.integrity.digest).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(signed.integrity.digest).toBe(FIXED_DIGEST);
    expect(signed.integrity.signatureValue).toBe(nodeCryptoSignature(canonical));
    expect(reportDigest(sampleEvaluationReport())).toBe(FIXED_DIGEST);
  });

  it('verifies a signed report, also after a JSON round trip with keys reordered', () => {
    const signed = signReport(sampleEvaluationReport(), key);
    const reordered = JSON.parse(JSON.stringify({ integrity: signed.integrity, report: signed.report }));
    expect(verifyReport(reordered)).toMatchObject({ ok: true, digest: FIXED_DIGEST });
    expect(verifyReport(reordered, [RFC8032_PUBLIC_KEY]).ok).toBe(true);
    expect(verifyReport(reordered, ['00'.repeat(32)])).toMatchObject({ ok: false, problem: 'untrusted-key' });
  });

  it('refuses an altered value, a wrong digest, a forged signature and an unknown field', () => {
    const signed = signReport(sampleEvaluationReport(), key);
    const altered = structuredClone(signed);
    altered.report.plan = { ...altered.report.plan, latencyProbes: 21 };
    expect(verifyReport(altered)).toMatchObject({ ok: false, problem: 'digest' });
    const forged = structuredClone(signed);
    forged.report.plan = { ...forged.report.plan, latencyProbes: 21 };
    forged.integrity.digest = reportDigest(forged.report);
    expect(verifyReport(forged)).toMatchObject({ ok: false, problem: 'signature' });
    const extra = { ...signed, report: { ...signed.report, seed: 'ab'.repeat(32) } };
    expect(verifyReport(extra)).toMatchObject({ ok: false, problem: 'schema' });
    const nested = structuredClone(signed) as unknown as { report: { route: Record<string, unknown> } };
    nested.report.route['sessionToken'] = 'x';
    expect(verifyReport(nested)).toMatchObject({ ok: false, problem: 'schema' });
  });

  it('refuses to sign a report naming another key', () => {
    const other = reportSigningKey('11'.repeat(32));
    expect(() => signReport(sampleEvaluationReport(), other)).toThrow('another verifier key');
  });
});

const FIXED_DIGEST = 'da3c4e585123105c86d16ff5daa1e5410fe3e85c49697e5afd7b00508219fe74';

/** An independent Ed25519 implementation (OpenSSL through node:crypto) signing the same bytes. */
function nodeCryptoSignature(text: string): string {
  const pkcs8Prefix = '302e020100300506032b657004220420';
  const privateKey = createPrivateKey({
    key: Buffer.from(pkcs8Prefix + RFC8032_SECRET_KEY, 'hex'),
    format: 'der',
    type: 'pkcs8',
  });
  return sign(null, Buffer.from(text, 'utf8'), privateKey).toString('hex');
}
