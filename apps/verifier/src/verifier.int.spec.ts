import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { reportSigningKey, verifyReport } from '@sandbox/evaluation-report';
import { EVALUATIONS_QUEUE, type SignedEvaluationReport, type TargetStatus } from '@sandbox/protocol';
import { createProducer, createRedisConnection } from '@sandbox/queue';
import { waitFor } from '@sandbox/testing';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { startFaultyResponder, type Fault } from './__fixtures__/faulty-responder';
import { openPaidWorld, type PaidWorld } from './__fixtures__/paid-world';
import { startSignerGate } from './__fixtures__/signer-gate';
import { startVerifier } from './__fixtures__/verifier-harness';
import { dumpRedis } from './__fixtures__/redis-dump';

const SIGNER_CREDENTIAL = 'canary-signer-credential-7d1e0c';
const CANARY_SEED = Buffer.from('5eed'.repeat(16), 'hex');
const KEY_HEX = '42'.repeat(32);
const PUBLIC_KEY = reportSigningKey(KEY_HEX).publicKeyHex;

let world: PaidWorld;
let faulty: Awaited<ReturnType<typeof startFaultyResponder>>;
let gate: Awaited<ReturnType<typeof startSignerGate>>;
let verifier: Awaited<ReturnType<typeof startVerifier>>;
let inspect: Redis;

beforeAll(async () => {
  faulty = await startFaultyResponder();
  world = await openPaidWorld({
    name: 'int',
    bootstrap: 'verifier-test-bootstrap-secret',
    grants: [`127.0.0.1:${faulty.port}`],
  });
  await world.register({ runnerId: 'resp-1', app: 'eval-responder' });
  await world.register({ runnerId: 'faulty-1', app: 'eval-faulty', url: faulty.url });
  gate = await startSignerGate(world.node.url);
  verifier = await startVerifier(
    world.verifierEnv({
      SIGNER_URL: gate.url,
      TRANSFER_SECONDS: '0.6',
      WARMUP_SECONDS: '0.2',
      RESULT_TTL_MS: '3600000',
    }),
    { signerCredential: SIGNER_CREDENTIAL, signingKeyHex: KEY_HEX, newSeed: () => Buffer.from(CANARY_SEED) },
  );
  inspect = createRedisConnection(world.redis.url, 'worker', { logger: pino({ level: 'silent' }) });
}, 120_000);

afterAll(async () => {
  await verifier?.stop();
  await inspect?.quit();
  await Promise.all([gate?.close(), faulty?.close()]);
  await world?.close();
});

async function report(id: string | null | undefined): Promise<SignedEvaluationReport> {
  const reply = await verifier.api(`/v1/reports/${id ?? ''}`);
  expect(reply.status).toBe(200);
  return (await reply.json()) as SignedEvaluationReport;
}

function latest(status: TargetStatus) {
  const [attempt] = status.attempts;
  if (!attempt) throw new Error('no attempt recorded');
  return attempt;
}

/** Every run ends its session: Node holds none once it is over. */
async function noSessionLeft(): Promise<void> {
  await waitFor(
    async () =>
      (await (await fetch(`${world.node.metricsUrl}/metrics`)).text()).includes('livepeer_sessions 0') ||
      undefined,
    { description: 'Node to have no session left', timeoutMs: 10_000 },
  );
}

async function faultyRun(fault: Fault): Promise<TargetStatus> {
  faulty.setFault(fault);
  return verifier.evaluate({ app: 'eval-faulty', runnerId: 'faulty-1' });
}

describe('verifier against the paid Node simulator', () => {
  it('measures the real responder in a paid session and writes a signed report', async () => {
    const status = await verifier.evaluate({ app: 'eval-responder', runnerId: 'resp-1' });
    expect(latest(status)).toMatchObject({ status: 'pass', attribution: 'none', reasonCode: 'ok' });
    expect(status.current).toMatchObject({ state: 'pass', carriedForward: false });
    const signed = await report(latest(status).reportId);
    expect(verifyReport(signed, [PUBLIC_KEY])).toMatchObject({ ok: true });
    const { report: body } = signed;
    expect(body.route).toMatchObject({
      runnerId: 'resp-1',
      app: 'eval-responder',
      orchestratorUrl: world.node.url,
      nodeUrl: world.node.url,
    });
    expect(body.route.sessionId).toBe(latest(status).sessionId);
    expect(body.latency?.samples).toBe(20);
    expect(body.download?.bytes).toBeGreaterThan(0);
    expect(body.upload?.bytes).toBeGreaterThan(0);
    expect(body.hashRate).toMatchObject({ shares: 40, difficultyBits: 8 });
    expect(body.seedCommitment.value).not.toBe(CANARY_SEED.toString('hex'));
    expect(body.reliability.failures).toEqual(expect.objectContaining({ reset: 0, timeout: 0 }));
    expect(gate.authorizations.every((value) => value === `Bearer ${SIGNER_CREDENTIAL}`)).toBe(true);
    await waitFor(
      async () =>
        (await (await fetch(`${world.node.metricsUrl}/metrics`)).text()).includes('livepeer_sessions 0') ||
        undefined,
      { description: 'Node to have no session left' },
    );
  });

  it('attributes wrong shares to the target, at once even after a pass', async () => {
    expect(latest(await faultyRun('none')).status).toBe('pass');
    const status = await faultyRun('wrong-shares');
    expect(latest(status)).toMatchObject({
      status: 'fail',
      attribution: 'target',
      reasonCode: 'hash-invalid-shares',
    });
    expect(status.current).toMatchObject({
      state: 'fail',
      attribution: 'target',
      reportId: latest(status).reportId,
    });
    const signed = await report(latest(status).reportId);
    expect(signed.report.reliability.failures['invalid-share']).toBe(1);
    expect(verifyReport(signed).ok).toBe(true);
  });

  it.each<[Fault, string]>([
    ['altered-bytes', 'download-corrupt'],
    ['truncated', 'download-reset'],
    // The runner's reset arrives before response headers, so Node answers 502 (Go's ReverseProxy).
    ['reset-upload', 'upload-http-5xx'],
    ['hash-5xx', 'hash-http-5xx'],
  ])('attributes %s to the target (%s)', async (fault, reasonCode) => {
    const status = await faultyRun(fault);
    expect(latest(status)).toMatchObject({ status: 'fail', attribution: 'target', reasonCode });
    expect(status.current?.state).toBe('fail');
    await noSessionLeft();
  });

  it('keeps the last good result, unrefreshed, through a signer outage', async () => {
    const good = await faultyRun('none');
    const before = good.current;
    expect(before?.state).toBe('pass');
    gate.setUp(false);
    try {
      const status = await faultyRun('none');
      expect(latest(status)).toMatchObject({
        status: 'fail',
        attribution: 'platform',
        reasonCode: 'signer-refused',
      });
      expect(status.current).toEqual({ ...before, carriedForward: true });
    } finally {
      gate.setUp(true);
    }
  });

  it('records an interrupted run as a platform attempt and keeps the last good result', async () => {
    const good = await faultyRun('none');
    const before = good.current;
    expect(before?.state).toBe('pass');
    await inspect.set(
      `${verifier.config.KEY_PREFIX}:inflight:crashed-1`,
      JSON.stringify({
        evaluationId: 'crashed-1',
        runnerId: 'faulty-1',
        app: 'eval-faulty',
        trigger: 'on-demand',
        startedAt: new Date().toISOString(),
      }),
    );
    gate.setUp(false);
    try {
      const producer = createProducer(EVALUATIONS_QUEUE, {
        connection: inspect,
        prefix: world.queuePrefix,
        logger: pino({ level: 'silent' }),
      });
      await producer.add('run-evaluation', {
        evaluationId: 'crashed-1',
        target: { app: 'eval-faulty', runnerId: 'faulty-1' },
        requestedAt: new Date().toISOString(),
        trigger: 'on-demand',
      });
      await producer.close();
      const status = await waitFor(
        async () => {
          const body = (await (await verifier.api(`/v1/targets/faulty-1`)).json()) as TargetStatus;
          return body.attempts.filter((attempt) => attempt.evaluationId === 'crashed-1').length === 2
            ? body
            : undefined;
        },
        { description: 'the retried run', timeoutMs: 30_000, intervalMs: 100 },
      );
      const interrupted = status.attempts.find((attempt) => attempt.reasonCode === 'verifier-interrupted');
      expect(interrupted).toMatchObject({ attribution: 'platform', reportId: null });
      expect(status.current).toEqual({ ...before, carriedForward: true });
    } finally {
      gate.setUp(true);
    }
  });

  it('lists targets, fans an app-wide request out to its runners and answers 404 and 400', async () => {
    const status = await verifier.evaluate({ app: 'eval-responder' }, 'resp-1');
    expect(latest(status).evaluationId).toMatch(/^od-/u);
    const list = (await (await verifier.api(`/v1/targets`)).json()) as {
      targets: { runnerId: string }[];
    };
    expect(list.targets.map((target) => target.runnerId).sort()).toEqual(['faulty-1', 'resp-1']);
    expect((await verifier.api(`/v1/targets/nobody`)).status).toBe(404);
    expect((await verifier.api(`/v1/reports/nothing`)).status).toBe(404);
    const bad = await verifier.api(`/v1/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: { app: 'x' }, seed: 'ab' }),
    });
    expect(bad.status).toBe(400);
    const anonymous = await fetch(`${verifier.base}/v1/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: { app: 'eval-responder' } }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('ends the session of a run cut short by a shutdown and records it as a platform attempt', async () => {
    const keyPrefix = `${verifier.config.KEY_PREFIX.slice(0, 30)}:stop`;
    const second = await startVerifier(
      world.verifierEnv({
        QUEUE_PREFIX: `${world.queuePrefix}-stop`,
        KEY_PREFIX: keyPrefix,
        SIGNER_URL: gate.url,
        WARMUP_SECONDS: '0',
      }),
      {
        signerCredential: SIGNER_CREDENTIAL,
        signingKeyHex: KEY_HEX,
        newSeed: () => Buffer.from(CANARY_SEED),
      },
    );
    faulty.setFault('hang-hash');
    try {
      await second.api(`/v1/evaluations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: { app: 'eval-faulty', runnerId: 'faulty-1' } }),
      });
      await waitFor(() => second.log.text().includes('"session reserved"') || undefined, {
        description: 'the run to reserve its session',
        timeoutMs: 20_000,
      });
      await waitFor(() => faulty.hashesWaiting() > 0 || undefined, { description: 'the hash step to start' });
    } finally {
      await second.stop();
      faulty.setFault('none');
    }
    expect(second.log.text()).toContain('"session stopped"');
    const stored = JSON.parse((await inspect.get(`${keyPrefix}:target:faulty-1`)) ?? '{}') as TargetStatus;
    expect(stored.attempts[0]).toMatchObject({ attribution: 'platform', reasonCode: 'verifier-stopping' });
    await waitFor(
      async () =>
        (await (await fetch(`${world.node.metricsUrl}/metrics`)).text()).includes('livepeer_sessions 0') ||
        undefined,
      { description: 'Node to have no session left' },
    );
  });

  it('never lets the seed, session tokens or the signer credential into logs, reports, metrics or Redis', async () => {
    const seedHex = CANARY_SEED.toString('hex');
    const metrics = await (await verifier.api(`/metrics`)).text();
    const stored = await dumpRedis(inspect);
    expect(metrics).toContain('verifier_evaluations_total');
    expect(metrics).not.toContain('session');
    for (const text of [verifier.log.text(), metrics, stored]) {
      expect(text).not.toContain(seedHex);
      expect(text).not.toContain(SIGNER_CREDENTIAL);
      for (const token of faulty.sessionTokens()) expect(text).not.toContain(token);
    }
    expect(faulty.sessionTokens().length).toBeGreaterThan(0);
    expect(verifier.log.text()).toContain('"runner_id":"resp-1"');
    expect(verifier.log.text()).toContain('"session_id"');
  });
});
