import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { EvaluationTarget } from '@sandbox/protocol';
import type { ServiceLogger } from '@sandbox/service-kit';
import { pickRunner } from '../node/discovery';
import { reserveSession } from '../node/node-session';
import type { SignerClient } from '../node/signer-client';
import { measureLatency, type LatencyResult } from '../plan/latency.step';
import type { Plan } from '../plan/plan';
import { ReliabilityCounter } from '../run/reliability';

/**
 * The verifier's latency step alone, in its own paid session: what the RTT of a full run is, without
 * the transfers after it (so a delay line's lateness figures cover the probes' packets only).
 */
export async function latencyInSession(
  target: EvaluationTarget,
  deps: { nodeUrl: string; signer: SignerClient; plan: Plan; logger: ServiceLogger },
): Promise<LatencyResult> {
  const reliability = new ReliabilityCounter();
  const timeoutMs = 10_000;
  const runner = await pickRunner(deps.nodeUrl, target, { timeoutMs, reliability });
  const session = await reserveSession(runner, {
    signer: deps.signer,
    reliability,
    logger: deps.logger,
    timeoutMs,
  });
  try {
    return await measureLatency({
      appUrl: session.appUrl,
      sessionId: session.sessionId,
      seed: randomBytes(32),
      plan: deps.plan,
      reliability,
      runSignal: new AbortController().signal,
      requestTimeoutMs: timeoutMs,
      now: () => performance.now(),
    });
  } finally {
    await session.stop();
  }
}

/** The host's CPU pressure (PSI `some avg60`, % of time runnable tasks waited for a CPU). */
export async function cpuPressurePercent(): Promise<number> {
  const text = await readFile('/proc/pressure/cpu', 'utf8').catch(() => '');
  return Number(/^some avg10=[\d.]+ avg60=([\d.]+)/mu.exec(text)?.[1] ?? Number.NaN);
}
