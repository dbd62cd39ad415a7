import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyReport } from '@sandbox/evaluation-report';
import type { SignedEvaluationReport, TargetStatus } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { openPaidWorld, type PaidWorld } from './__fixtures__/paid-world';
import { startVerifier } from './__fixtures__/verifier-harness';

// Single-shot runners, measured through Node's `/apps/{runner}/app` calls: every request of the plan
// its own (paid) call, the same report schema, the mode in the report.
const SHOT_PRICE = { price: 0.002, currency: 'usd', unit: 'fixed' };

let world: PaidWorld;
let verifier: Awaited<ReturnType<typeof startVerifier>>;

beforeAll(async () => {
  world = await openPaidWorld({ name: 'shot', bootstrap: 'single-shot-bootstrap' });
  await world.register({ runnerId: 'shot-1', app: 'eval-shot', mode: 'single-shot', priceInfo: SHOT_PRICE });
  verifier = await startVerifier(world.verifierEnv({ LATENCY_GAP_MS: '5', EVALUATIONS_PER_SESSION: '2' }), {
    signerCredential: 'single-shot-signer-credential',
    signingKeyHex: '2b'.repeat(32),
  });
}, 120_000);

afterAll(async () => {
  await verifier?.stop();
  await world?.close();
});

async function evaluated(runnerId: string, app: string, count: number): Promise<TargetStatus> {
  const reply = await verifier.api('/v1/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: { app } }),
  });
  expect(reply.status).toBe(202);
  const { evaluationId } = (await reply.json()) as { evaluationId: string };
  return waitFor(
    async () => {
      const status = (await (await verifier.api(`/v1/targets/${runnerId}`)).json()) as TargetStatus;
      return status.attempts.filter((attempt) => attempt.evaluationId.startsWith(evaluationId)).length >=
        count
        ? status
        : undefined;
    },
    { description: `${count} evaluations of ${runnerId}`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

async function report(id: string | null | undefined): Promise<SignedEvaluationReport> {
  const reply = await verifier.api(`/v1/reports/${id ?? ''}`);
  expect(reply.status).toBe(200);
  return (await reply.json()) as SignedEvaluationReport;
}

describe('single-shot evaluations', () => {
  it('measures a paid single-shot runner with one paid call per request, and says so in the report', async () => {
    const status = await evaluated('shot-1', 'eval-shot', 2);
    expect(status.attempts.slice(0, 2).every((attempt) => attempt.status === 'pass')).toBe(true);
    expect(status.attempts[0]?.sessionId).toBeNull();
    expect(status.current).toMatchObject({ state: 'pass' });
    const signed = await report(status.attempts[0]?.reportId);
    expect(verifyReport(signed).ok).toBe(true);
    const { report: body } = signed;
    expect(body.route).toMatchObject({ mode: 'single-shot', runnerId: 'shot-1', sessionId: null });
    expect(body.hashRate).toMatchObject({ shares: 40 });
    // Every call of the plan (21 echoes, a download, two uploads, a hash) drew a 402 and was paid.
    expect(body.reliability.requests).toBe(2 * (21 + 1 + 2 + 1));
    expect(verifier.log.text()).not.toContain('"session reserved"');
    await waitFor(
      async () =>
        (await (await fetch(`${world.node.metricsUrl}/metrics`)).text()).includes('livepeer_sessions 0') ||
        undefined,
      { description: 'Node to hold no session' },
    );
  });
});
