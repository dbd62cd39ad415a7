import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyReport } from '@sandbox/evaluation-report';
import type { EvaluationAttempt, SignedEvaluationReport, TargetStatus } from '@sandbox/protocol';
import { findFreePort, waitFor } from '@sandbox/testing';
import { startFaultyResponder } from './__fixtures__/faulty-responder';
import { startHandoffCapture } from './__fixtures__/handoff-capture';
import { openPaidWorld, type PaidWorld } from './__fixtures__/paid-world';
import { startResponderProcess, unregisterRunner, type ChildHandle } from './__fixtures__/processes';
import { startVerifier } from './__fixtures__/verifier-harness';

// Several evaluations in one paid session, and runs across an instance replacement, against the
// Node simulator in paid mode (winning tickets kept in its outbox).
let world: PaidWorld;
let replacement: ChildHandle;
let faulty: Awaited<ReturnType<typeof startFaultyResponder>>;
let verifier: Awaited<ReturnType<typeof startVerifier>>;
let replacementPort: number;
let handoff: Awaited<ReturnType<typeof startHandoffCapture>>;

beforeAll(async () => {
  handoff = await startHandoffCapture();
  replacementPort = await findFreePort();
  replacement = await startResponderProcess(replacementPort);
  faulty = await startFaultyResponder();
  world = await openPaidWorld({
    name: 'series',
    bootstrap: 'session-series-bootstrap-secret',
    grants: [`127.0.0.1:${replacementPort}`, `127.0.0.1:${faulty.port}`],
    nodeArgs: async (dir) => {
      await writeFile(join(dir, 'handoff'), 'series-handoff-secret');
      return [
        ...['--data-dir', join(dir, 'node'), '--handoff-url', handoff.url],
        ...['--handoff-secret-file', join(dir, 'handoff')],
      ];
    },
  });
  await world.register({ runnerId: 'series-1', app: 'eval-responder' });
  verifier = await startVerifier(
    world.verifierEnv({ TRANSFER_SECONDS: '0.4', EVALUATIONS_PER_SESSION: '2' }),
    { signerCredential: 'series-signer-credential', signingKeyHex: '17'.repeat(32) },
  );
}, 120_000);

afterAll(async () => {
  await verifier?.stop();
  await Promise.all([faulty?.close(), replacement?.stop()]);
  await world?.close();
  await handoff?.close();
});

/** Queues an on-demand run; resolves with its evaluation id. */
async function request(body: object): Promise<string> {
  const reply = await verifier.api('/v1/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(reply.status).toBe(202);
  return ((await reply.json()) as { evaluationId: string }).evaluationId;
}

/** Waits until `count` attempts of the request show on the runner; returns them oldest first. */
async function attemptsOf(
  runnerId: string,
  evaluationId: string,
  count: number,
): Promise<EvaluationAttempt[]> {
  return waitFor(
    async () => {
      const reply = await verifier.api(`/v1/targets/${runnerId}`);
      if (reply.status !== 200) return undefined;
      const { attempts } = (await reply.json()) as TargetStatus;
      const mine = attempts.filter((attempt) => attempt.evaluationId.startsWith(evaluationId)).reverse();
      return mine.length >= count ? mine : undefined;
    },
    { description: `${count} attempts of ${evaluationId}`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

async function reportOf(attempt: EvaluationAttempt): Promise<SignedEvaluationReport> {
  const reply = await verifier.api(`/v1/reports/${attempt.reportId ?? ''}`);
  expect(reply.status).toBe(200);
  return (await reply.json()) as SignedEvaluationReport;
}

/** The verifier's log lines with this message and session id. */
function logLines(msg: string, sessionId: string | null): unknown[] {
  return verifier.log.lines
    .map((line) => JSON.parse(line) as { msg?: string; session_id?: string })
    .filter((line) => line.msg === msg && line.session_id === sessionId);
}

async function noSessionLeft(): Promise<void> {
  await waitFor(
    async () =>
      (await (await fetch(`${world.node.metricsUrl}/metrics`)).text()).includes('livepeer_sessions 0') ||
      undefined,
    { description: 'Node to have no session left', timeoutMs: 10_000 },
  );
}

describe('several evaluations in one paid session', () => {
  it('runs three evaluations in one session: one report each, the session reserved and stopped once', async () => {
    const ticketsBefore = handoff.received();
    const id = await request({
      target: { app: 'eval-responder', runnerId: 'series-1' },
      evaluationsPerSession: 3,
    });
    const attempts = await attemptsOf('series-1', id, 3);
    expect(attempts.map((attempt) => attempt.evaluationId)).toEqual([`${id}-1`, `${id}-2`, `${id}-3`]);
    expect(attempts.every((attempt) => attempt.status === 'pass')).toBe(true);
    const [sessionId] = attempts.map((attempt) => attempt.sessionId);
    expect(sessionId).toEqual(expect.any(String));
    expect(attempts.every((attempt) => attempt.sessionId === sessionId)).toBe(true);
    const reports = await Promise.all(attempts.map(reportOf));
    expect(new Set(reports.map((signed) => signed.report.reportId)).size).toBe(3);
    expect(new Set(reports.map((signed) => signed.report.seedCommitment.value)).size).toBe(3);
    expect(reports.map((signed) => signed.report.route.sessionEvaluation)).toEqual([
      { index: 1, count: 3 },
      { index: 2, count: 3 },
      { index: 3, count: 3 },
    ]);
    for (const signed of reports) {
      expect(signed.report.route.sessionId).toBe(sessionId);
      expect(verifyReport(signed).ok).toBe(true);
    }
    expect(logLines('session reserved', sessionId ?? null)).toHaveLength(1);
    expect(logLines('session stopped', sessionId ?? null)).toHaveLength(1);
    expect(logLines('evaluation finished', sessionId ?? null)).toHaveLength(3);
    await noSessionLeft();
    await waitFor(() => handoff.received() > ticketsBefore || undefined, {
      description: "the session's winning tickets at the hand-off",
      timeoutMs: 20_000,
    });
  });

  it('takes the configured count when the request names none, and refuses more than ten', async () => {
    const id = await request({ target: { app: 'eval-responder' } });
    const attempts = await attemptsOf('series-1', id, 2);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]?.sessionId).toBe(attempts[1]?.sessionId);
    expect(attempts.map((attempt) => attempt.evaluationId.slice(-2))).toEqual(['-1', '-2']);
    const single = await request({
      target: { app: 'eval-responder', runnerId: 'series-1' },
      evaluationsPerSession: 1,
    });
    expect((await attemptsOf('series-1', single, 1)).map((attempt) => attempt.evaluationId)).toEqual([
      single,
    ]);
    const tooMany = await verifier.api('/v1/evaluations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: { app: 'eval-responder' }, evaluationsPerSession: 11 }),
    });
    expect(tooMany.status).toBe(400);
  });
});

describe('across an instance replacement', () => {
  it('attributes the run cut by the replacement to the target and names the new runner next', async () => {
    const oldCredential = await world.register({
      runnerId: 'swap-i1',
      app: 'eval-swap',
      url: faulty.url,
      metadata: 'instance=i1',
    });
    faulty.setFault('hang-later-hash');
    const id = await request({ target: { app: 'eval-swap', runnerId: 'swap-i1' }, evaluationsPerSession: 2 });
    await waitFor(() => faulty.hashesWaiting() > 0 || undefined, {
      description: 'the second evaluation to reach its hash step',
      timeoutMs: 30_000,
    });
    // The instance is replaced mid-run: the old one goes away with the session's request in flight,
    // and its successor registers under a new runner id.
    await faulty.close();
    await unregisterRunner(world.node.url, 'swap-i1', oldCredential);
    await world.register({
      runnerId: 'swap-i2',
      app: 'eval-swap',
      url: `http://127.0.0.1:${replacementPort}`,
      metadata: 'instance=i2',
    });
    const [first, cut] = await attemptsOf('swap-i1', id, 2);
    expect(first).toMatchObject({ status: 'pass', evaluationId: `${id}-1` });
    expect(cut).toMatchObject({ status: 'fail', attribution: 'target', evaluationId: `${id}-2` });
    expect(cut?.reasonCode).toMatch(/^hash-/u);
    expect(cut?.sessionId).toBe(first?.sessionId);
    expect(logLines('session stopped', first?.sessionId ?? null)).toHaveLength(1);

    const next = await request({ target: { app: 'eval-swap' } });
    const after = await attemptsOf('swap-i2', next, 2);
    expect(after.every((attempt) => attempt.status === 'pass')).toBe(true);
    const { report } = await reportOf(after[0] as EvaluationAttempt);
    expect(report.route).toMatchObject({ runnerId: 'swap-i2', instanceMetadata: 'instance=i2' });
    expect(report.route.sessionId).not.toBe(first?.sessionId);
    const old = (await (await verifier.api('/v1/targets/swap-i1')).json()) as TargetStatus;
    expect(old.current).toMatchObject({ state: 'fail', attribution: 'target' });
    expect(old.attempts.some((attempt) => attempt.evaluationId.startsWith(next))).toBe(false);
    await noSessionLeft();
  });
});
