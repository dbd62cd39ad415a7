import type { EvaluationReport } from '@sandbox/protocol';

/** RFC 8032 §7.1 test 1 secret key, so the derived public key is a published vector too. */
export const RFC8032_SECRET_KEY = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
export const RFC8032_PUBLIC_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

/**
 * A complete passing report, as the verifier writes one, naming `publicKeyHex` as its verifier key
 * (the RFC 8032 vector by default, which the fixed-digest tests sign with).
 */
export function sampleEvaluationReport(publicKeyHex: string = RFC8032_PUBLIC_KEY): EvaluationReport {
  return {
    schemaVersion: 'sandbox.evaluation-report.v1',
    reportId: 'rep-01',
    evaluationId: 'eval-01',
    trigger: 'on-demand',
    verifier: { id: 'verifier-test', version: '0.1.0', publicKey: publicKeyHex },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:30.000Z',
    validUntil: '2026-01-01T01:00:30.000Z',
    route: {
      orchestratorUrl: 'http://127.0.0.1:8935',
      runnerId: 'eval-responder-1',
      sessionId: 'sess-1',
      app: 'eval-responder',
      priceWeiPerSecond: '1000000000000',
    },
    seedCommitment: { algorithm: 'sha256', value: 'ab'.repeat(32) },
    plan: {
      latencyProbes: 20,
      transferSeconds: 10,
      warmupSeconds: 2,
      maxTransferBytes: 2_000_000_000,
      hashShares: 400,
      hashDifficultyBits: 12,
      runTimeoutMs: 120_000,
    },
    outcome: { status: 'pass', attribution: 'none', reasonCode: 'ok' },
    latency: { samples: 20, minMs: 0.25, medianMs: 0.4, p95Ms: 1.5, jitterMs: 0.1 },
    download: { bytes: 125_000_000, seconds: 10, megabitsPerSecond: 100, warmupBytes: 1_000_000 },
    upload: { bytes: 62_500_000, seconds: 10, megabitsPerSecond: 50, warmupBytes: 500_000 },
    hashRate: {
      shares: 400,
      difficultyBits: 12,
      seconds: 1.6384,
      hashesPerSecond: 1_000_000,
      relativeStdError: 0.05,
    },
    reliability: {
      requests: 30,
      failures: {
        timeout: 0,
        reset: 0,
        'http-5xx': 0,
        'http-4xx': 0,
        'corrupt-bytes': 0,
        'invalid-share': 0,
        payment: 0,
        other: 0,
      },
      resets: 0,
    },
  };
}
