import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startChildProcess } from '@sandbox/process';
import { createMemoryLogger, parentEnv } from '@sandbox/testing';
import { MAX_UINT256 } from '@sandbox/tickets';
import { parseRational } from '../go/rational';
import type { RunningNodeSim } from '../node-sim';
import { startNodeSim } from '../node-sim';
import { MemoryWinnerSink } from '../outbox/file-outbox';
import { paidMode } from '../payments/paid-mode';
import { ensureSdkVenv } from '@sandbox/testing';
import type { RunnerApp } from '../testing/runner-app';
import { startRunnerApp } from '../testing/runner-app';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'sdk_interop.py');
const SECRET = 'interop-bootstrap';

let python: string;
let app: RunnerApp;

beforeAll(async () => {
  python = ensureSdkVenv();
  app = await startRunnerApp();
}, 600_000);
afterAll(async () => {
  await app.close();
});

type Step = { step: string } & Record<string, unknown>;

async function runScenario(
  scenario: string,
  orchestrator: string,
): Promise<{ code: number | null; steps: Step[]; stderr: string }> {
  const child = startChildProcess(python, [SCRIPT, scenario, orchestrator, SECRET, app.url], {
    env: parentEnv(),
  });
  const { code } = await child.exited;
  const steps = child
    .stdout()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Step);
  return { code, steps, stderr: child.stderr() };
}

async function start(paid: boolean): Promise<RunningNodeSim> {
  const sink = new MemoryWinnerSink();
  return startNodeSim(
    {
      listen: { host: '127.0.0.1', port: 0 },
      metricsListen: { host: '127.0.0.1', port: 0 },
      bootstrapSecret: Buffer.from(SECRET),
      heartbeatIntervalMs: 5_000,
      heartbeatTtlMs: 30_000,
      runnerGrants: [app.grant],
      sessionProxyGrants: [],
      weiPerUsd: paid ? parseRational('1000000000000') : undefined,
      shutdownGraceMs: 1_000,
    },
    {
      logger: createMemoryLogger('warn').logger,
      payments: paid ? paidMode({ faceValue: 10n ** 15n, winProb: MAX_UINT256, sink }) : undefined,
    },
  );
}

const byStep = (steps: Step[], name: string): Step | undefined => steps.find((step) => step.step === name);

describe('official Python SDK (livepeer-gateway 1.0.0) against the simulator', () => {
  it('registers, heartbeats and follows O2R as a runner; discovers, reserves, calls (HTTP, SSE, WebSocket) and stops as a client', async () => {
    const sim = await start(false);
    try {
      const { code, steps, stderr } = await runScenario('free', sim.publicUrl);
      expect({ code, error: byStep(steps, 'error'), stderr: code === 0 ? '' : stderr }).toEqual({
        code: 0,
        error: undefined,
        stderr: '',
      });
      const registered = byStep(steps, 'registered');
      expect(registered).toMatchObject({ interval: 0.2, ttl: 30, o2r: true });
      const reserved = byStep(steps, 'reserved') as Step & { session_id: string };
      expect(byStep(steps, 'discovered')).toEqual({
        step: 'discovered',
        urls: [`${sim.publicUrl}/apps/${String(registered?.runner_id)}/session`],
      });
      expect(byStep(steps, 'http')).toMatchObject({
        url: '/hello?q=1',
        body: '{"x": 1}',
        headers: { 'livepeer-session-id': reserved.session_id },
      });
      expect(byStep(steps, 'sse-open')).toMatchObject({ status: 200, content_type: 'text/event-stream' });
      expect(byStep(steps, 'sse')).toEqual({ step: 'sse', lines: ['data: 0', 'data: 1', 'data: 2'] });
      expect(byStep(steps, 'ws')).toEqual({ step: 'ws', data: 'echo:hi' });
      expect(byStep(steps, 'active')).toEqual({ step: 'active', ids: [reserved.session_id] });
      expect(steps.map((step) => step.step).slice(-2)).toEqual(['o2r-released', 'closed']);
      expect(sim.context.runners.counts()).toEqual({ runners: 0, sessions: 0 });
    } finally {
      await sim.stop();
    }
  }, 60_000);

  it('pays through the simulated signer: 402, tickets, activation, funding loop, stop, a fixed-price single-shot call, and a reservation found through signer discovery alone', async () => {
    const sim = await start(true);
    try {
      const { code, steps, stderr } = await runScenario('paid', sim.publicUrl);
      expect({ code, error: byStep(steps, 'error'), stderr: code === 0 ? '' : stderr }).toEqual({
        code: 0,
        error: undefined,
        stderr: '',
      });
      expect(byStep(steps, 'http')).toMatchObject({ url: '/hello' });
      expect(byStep(steps, 'still-funded')).toMatchObject({ released: false });
      expect(byStep(steps, 'single-shot')).toMatchObject({ url: '/' });
      const [persistentId] = (byStep(steps, 'registered') as { runner_ids?: string[] }).runner_ids ?? [];
      expect(byStep(steps, 'signer-discovery')).toMatchObject({
        app_url: expect.stringContaining(`/apps/${persistentId}/session/`),
      });
    } finally {
      await sim.stop();
    }
  }, 60_000);
});
