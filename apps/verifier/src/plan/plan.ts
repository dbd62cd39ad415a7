import type { z } from 'zod';
import type { ReportPlanSchema } from '@sandbox/protocol';
import type { ReliabilityCounter } from '../run/reliability';

/** The measured steps' parameters (copied into every report). */
export type Plan = z.infer<typeof ReportPlanSchema>;

/** What every step gets: the session's app URL, the run's seed and the shared counters and limits. */
export interface StepContext {
  appUrl: string;
  sessionId: string;
  /** The run's 32-byte seed. Secret: only ever sent to the responder in request bodies. */
  seed: Uint8Array;
  plan: Plan;
  reliability: ReliabilityCounter;
  /** Aborts every request when the run's deadline passes. */
  runSignal: AbortSignal;
  requestTimeoutMs: number;
  /** Monotonic milliseconds (performance.now); injected so tests can fake slow paths. */
  now: () => number;
}

/** A request's signal: the run's deadline and the request's own timeout, whichever comes first. */
export function requestSignal(context: StepContext, timeoutMs = context.requestTimeoutMs): AbortSignal {
  return AbortSignal.any([context.runSignal, AbortSignal.timeout(timeoutMs)]);
}

export function seedHex(context: StepContext): string {
  return Buffer.from(context.seed).toString('hex');
}
