// The verifier end to end on the local driver, as `npm start` runs it in paid mode: the stack declares
// the eval-responder as an ordinary app, instance-manager runs it in gVisor, the adapter registers it with
// Node (the simulator), and the verifier evaluates it as a paying client. Winning tickets of its session
// reach redemption-handoff; the report verifies offline. Needs root (network namespaces, iptables).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { verifyReport } from '@sandbox/evaluation-report';
import {
  DiscoveryEntrySchema,
  InstanceListSchema,
  SignedEvaluationReportSchema,
  TargetStatusSchema,
  TicketListResponseSchema,
} from '@sandbox/protocol';
import { z } from 'zod';
import { asRoot, describeRequiring, startStack, waitFor, type StackProcess } from '@sandbox/testing';

const APP = 'eval-responder';
const describeAsRoot = describeRequiring(asRoot);

let stack: StackProcess;
const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

async function responderRunners(): Promise<string[]> {
  const entries = z
    .array(DiscoveryEntrySchema)
    .parse(await (await fetch(url(stack.ports.NODE_SIM_PORT, '/discovery'))).json());
  return entries
    .flatMap((entry) => entry.runners)
    .filter((runner) => runner.app === APP)
    .map((runner) => runner.url);
}

/** A management API call with the stack's admin token. */
async function api(port: number, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url(port, path), {
    ...init,
    headers: { ...(init.headers as Record<string, string>), ...(await stack.headers('admin')) },
  });
}

async function instancesGone(): Promise<boolean> {
  const reply = await api(stack.ports.INSTANCE_MANAGER_PORT, `/v1/instances?app=${APP}`);
  return InstanceListSchema.parse(await reply.json()).instances.every(
    (instance) => instance.state === 'gone',
  );
}

describeAsRoot('the verifier on the local driver through the paid Node simulator', () => {
  beforeAll(async () => {
    stack = await startStack({
      env: {
        INSTANCE_PREFIX: 'evr',
        INSTANCE_SUBNET: '10.231.8.0/24',
        NODE_SIM_PAID: 'true',
      },
      readyTimeoutMs: 120_000,
    });
  }, 400_000);

  afterAll(async () => {
    if (!stack) return;
    await api(stack.ports.INSTANCE_MANAGER_PORT, `/v1/apps/${APP}`, { method: 'DELETE' });
    await waitFor(instancesGone, { timeoutMs: 60_000, description: 'every instance gone' }).catch(
      () => undefined,
    );
    await stack.cleanup();
  }, 120_000);

  it('evaluates the sandboxed responder in a paid session and signs a valid report', async () => {
    await waitFor(async () => (await responderRunners()).length > 0, {
      timeoutMs: 240_000,
      intervalMs: 500,
      description: 'the responder registered with Node',
    });
    const request = await api(stack.ports.VERIFIER_PORT, '/v1/evaluations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: { app: APP } }),
    });
    expect(request.status).toBe(202);
    const { evaluationId } = (await request.json()) as { evaluationId: string };
    const status = await waitFor(
      async () => {
        const list = (await (await api(stack.ports.VERIFIER_PORT, '/v1/targets')).json()) as {
          targets: { runnerId: string }[];
        };
        for (const { runnerId } of list.targets) {
          const target = TargetStatusSchema.parse(
            await (await api(stack.ports.VERIFIER_PORT, `/v1/targets/${runnerId}`)).json(),
          );
          if (target.attempts.some((attempt) => attempt.evaluationId.startsWith(evaluationId))) return target;
        }
        return undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1_000, description: 'the on-demand evaluation to finish' },
    );
    const attempt = status.attempts.find((entry) => entry.evaluationId.startsWith(evaluationId));
    expect(attempt).toMatchObject({ status: 'pass', attribution: 'none' });
    const signed = SignedEvaluationReportSchema.parse(
      await (await api(stack.ports.VERIFIER_PORT, `/v1/reports/${attempt?.reportId ?? ''}`)).json(),
    );
    expect(verifyReport(signed)).toMatchObject({ ok: true });
    const { report } = signed;
    expect(report.route).toMatchObject({
      app: APP,
      runnerId: status.runnerId,
      sessionId: attempt?.sessionId,
    });
    expect(report.route.priceWeiPerSecond).toBeDefined();
    expect(report.download?.megabitsPerSecond).toBeGreaterThan(0);
    expect(report.upload?.megabitsPerSecond).toBeGreaterThan(0);
    expect(report.hashRate?.shares).toBe(400);
    process.stdout.write(
      `e2e report: ${JSON.stringify({ latency: report.latency, download: report.download, upload: report.upload, hashRate: report.hashRate })}\n`,
    );
    await waitFor(
      async () => {
        const reply = await api(stack.ports.REDEMPTION_HANDOFF_PORT, '/v1/winning-tickets');
        return TicketListResponseSchema.parse(await reply.json()).tickets.length > 0;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'winning tickets at redemption-handoff' },
    );
  }, 500_000);
});
