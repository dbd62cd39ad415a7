import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EvaluationTarget } from '@sandbox/protocol';
import { runCommand } from '@sandbox/sandbox-local';
import type { ServiceLogger } from '@sandbox/service-kit';
import { pickRunner } from '../../src/node/discovery';
import { reserveSession } from '../../src/node/node-session';
import type { SignerClient } from '../../src/node/signer-client';
import type { Plan, StepContext } from '../../src/plan/plan';
import { ReliabilityCounter } from '../../src/run/reliability';

/**
 * One step of the verifier's plan alone, in its own paid session: the latency step without the
 * transfers after it (so a delay line's lateness figures cover the probes' packets only), or the hash
 * step with the sandbox's CPU time read around it.
 */
export async function stepInSession<T>(
  target: EvaluationTarget,
  deps: { nodeUrl: string; signer: SignerClient; plan: Plan; logger: ServiceLogger },
  step: (context: StepContext) => Promise<T>,
): Promise<T> {
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
    return await step({
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

/**
 * CPU seconds a podman container's cgroup has used so far (cgroup v1 `cpuacct.usage` or v2
 * `cpu.stat`), or undefined when it cannot be read.
 */
export async function containerCpuSeconds(container: string): Promise<number | undefined> {
  const inspect = await runCommand('podman', ['inspect', '--format', '{{.State.CgroupPath}}', container], {
    allowFailure: true,
  });
  const path = inspect.stdout.trim();
  if (inspect.exitCode !== 0 || path === '') return undefined;
  const v1 = await readFile(join('/sys/fs/cgroup/cpuacct', path, 'cpuacct.usage'), 'utf8').catch(() => '');
  if (v1.trim() !== '') return Number(v1) / 1e9;
  const v2 = await readFile(join('/sys/fs/cgroup', path, 'cpu.stat'), 'utf8').catch(() => '');
  const usec = /^usage_usec (\d+)/mu.exec(v2)?.[1];
  return usec === undefined ? undefined : Number(usec) / 1e6;
}
