import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { LatencyResultSchema } from '@sandbox/protocol';
import { targetPathFault } from '../run/faults';
import { answerFault, openCall, requestSignal, type StepContext } from './plan';

export type LatencyResult = z.infer<typeof LatencyResultSchema>;

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] ?? 0;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** min, median, p95 and jitter (mean absolute difference of consecutive samples) in ms. */
export function latencyStats(samples: readonly number[]): LatencyResult {
  const sorted = [...samples].sort((a, b) => a - b);
  let jitter = 0;
  for (let index = 1; index < samples.length; index += 1)
    jitter += Math.abs((samples[index] ?? 0) - (samples[index - 1] ?? 0));
  return {
    samples: samples.length,
    minMs: round3(sorted[0] ?? 0),
    medianMs: round3(percentile(sorted, 0.5)),
    p95Ms: round3(percentile(sorted, 0.95)),
    jitterMs: round3(samples.length > 1 ? jitter / (samples.length - 1) : 0),
  };
}

/**
 * The idle time before every probe. Every process on the path (this one, Node, the sandbox) sleeps
 * while a probe waits for its answer and pays a wake-up when it comes: back to back on a fast link
 * the probes keep them all awake, on a slow one they do not, and the difference would be added to the
 * link's delay. Paced like ping, every probe starts from the same idle path, as a client that calls
 * now and then finds it.
 */
export const PROBE_GAP_MS = 50;

/**
 * One untimed probe opens the connection (for a single-shot runner, every probe is its own paid call,
 * timed from the paid request on: the 402 leg before it is not); then `latencyProbes` zero-work echoes, one at a time,
 * each the plan's `latencyGapMs` (default `PROBE_GAP_MS`) after the previous answer.
 */
export async function measureLatency(context: StepContext): Promise<LatencyResult> {
  const samples: number[] = [];
  for (let probe = -1; probe < context.plan.latencyProbes; probe += 1) {
    const call = await openCall(context, 'latency', '/v1/echo', 'GET');
    context.reliability.request();
    const started = context.now();
    let reply: Response;
    try {
      reply = await fetch(call.url, { headers: call.headers, signal: requestSignal(context) });
      await reply.arrayBuffer();
    } catch (error) {
      const fault = targetPathFault('latency', error);
      if (fault.failureKind) context.reliability.fail(fault.failureKind);
      throw fault;
    }
    const elapsed = context.now() - started;
    if (reply.status !== 204) {
      const fault = answerFault(call, 'latency', reply.status);
      context.reliability.fail(fault.failureKind ?? 'other');
      throw fault;
    }
    if (probe >= 0) samples.push(elapsed);
    // Past the run's deadline the next probe's request fails at once: no need to cut this short.
    await sleep(context.plan.latencyGapMs ?? PROBE_GAP_MS);
  }
  return latencyStats(samples);
}
