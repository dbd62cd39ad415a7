// The verify commands against a scripted verifier: the offline check of a report (valid, altered,
// re-digested without the key), and a watched run that fails.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { reportDigest, reportSigningKey, signReport } from '@sandbox/evaluation-report';
import type { SignedEvaluationReport } from '@sandbox/protocol';
import { findFreePort, sampleEvaluationReport } from '@sandbox/testing';
import { runWith } from '../__fixtures__/memory-io';
import { startScriptedServer, type ScriptedServer } from '../__fixtures__/scripted-server';

/** A key of this test run only (the public half goes into the report, as the verifier's does). */
const TEST_REPORT_KEY = reportSigningKey(randomBytes(32));
const signed = signReport(sampleEvaluationReport(TEST_REPORT_KEY.publicKeyHex), TEST_REPORT_KEY);
/** The outcome changed after signing: the digest no longer matches. */
const altered: SignedEvaluationReport = {
  ...signed,
  report: { ...signed.report, outcome: { status: 'fail', attribution: 'target', reasonCode: 'timeout' } },
};
/** Changed and re-digested by someone without the key: the signature no longer verifies. */
const forged: SignedEvaluationReport = {
  report: altered.report,
  integrity: { ...signed.integrity, digest: reportDigest(altered.report) },
};
const REPORTS: Record<string, SignedEvaluationReport> = { good: signed, altered, forged };

const attempt = {
  evaluationId: 'ev-1',
  trigger: 'on-demand',
  finishedAt: '2026-01-01T00:01:00.000Z',
  status: 'fail',
  attribution: 'target',
  reasonCode: 'download-timeout',
  sessionId: 's1',
  reportId: 'rep-9',
};
let polls = 0;
let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer(await findFreePort(), (method, path) => {
    const report = /^\/v1\/reports\/(\w+)$/.exec(path)?.[1];
    if (method === 'GET' && report && REPORTS[report]) return { status: 200, body: REPORTS[report] };
    if (method === 'POST' && path === '/v1/evaluations')
      return { status: 202, body: { evaluationId: 'ev-1', requestedAt: '2026-01-01T00:00:00.000Z' } };
    if (method === 'GET' && path === '/v1/targets/r1' && (polls += 1) > 2)
      return { status: 200, body: { runnerId: 'r1', app: 'probe', current: null, attempts: [attempt] } };
    return { status: 404, body: { error: { code: 'not_found', message: 'nothing here' }, requestId: 'r' } };
  });
});

afterAll(() => server.close());

const run = (...argv: string[]) =>
  runWith([...argv, '--server', `verifier=${server.url}`], {
    env: { SANDBOXCTL_CONFIG: '/nonexistent/config.yaml' },
    sleep: async () => undefined,
  });

describe('verify report --check', () => {
  it('accepts a report whose digest and signature verify, and prints it', async () => {
    const result = await run('verify', 'report', 'good', '--check');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('report/rep-01: digest and Ed25519 signature verify');
    expect(result.stdout).toMatch(/^report\/rep-01 pass \(none: ok\)\n/);
  });

  it('refuses a report changed after signing (digest) and one re-digested without the key (signature)', async () => {
    const changed = await run('verify', 'report', 'altered', '--check');
    expect([changed.code, changed.stdout]).toEqual([1, '']);
    expect(changed.stderr).toMatch(
      /^error: report\/rep-01 is invalid \(digest\): canonical digest is [0-9a-f]{64}/,
    );
    const resigned = await run('verify', 'report', 'forged', '--check', '-o', 'json');
    expect([resigned.code, resigned.stdout]).toEqual([1, '']);
    expect(resigned.stderr).toContain('is invalid (signature): Ed25519 signature does not verify');
  });
});

describe('verify run --watch', () => {
  it('waits for the attempt (404 until the first one), prints it and exits 1 when it failed', async () => {
    const result = await run('verify', 'run', '--runner', 'r1', '--app', 'probe', '--watch');
    expect(JSON.parse(server.requests.find((r) => r.method === 'POST')?.body ?? '')).toEqual({
      target: { app: 'probe', runnerId: 'r1' },
    });
    expect(result.stdout).toBe('evaluation/ev-1 fail (target: download-timeout), report rep-9\n');
    expect([result.code, result.stderr]).toEqual([
      1,
      'evaluation/ev-1 queued\nevaluation/ev-1 running on r1\nerror: evaluation/ev-1 failed: download-timeout\n',
    ]);
  });
});
