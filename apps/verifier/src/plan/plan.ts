import type { z } from 'zod';
import type { ReportPlanSchema } from '@sandbox/protocol';
import type { ReliabilityCounter } from '../run/reliability';
import { unexpectedStatus, unknownFault, type RunFault } from '../run/faults';

/** The measured steps' parameters (copied into every report). */
export type Plan = z.infer<typeof ReportPlanSchema>;

/** Where one request of a step goes, and the session Node holds it in. */
export interface AppCall {
  url: string;
  /** The payment of a single-shot call (empty inside a session). */
  headers: Record<string, string>;
  /** Node's session of the request; unknown before a free single-shot call is answered. */
  sessionId: string | undefined;
  /** A paid single-shot call: Node refusing it is about the payment. */
  paid: boolean;
}

/** Pays one single-shot call of `path` (its 402 leg untimed) and says where to send it. */
export type SingleShotCaller = (step: string, path: string, method: string) => Promise<AppCall>;

/** What every step gets: the session's app URL, the run's seed and the shared counters and limits. */
export interface StepContext {
  appUrl: string;
  sessionId: string;
  /** Set when the runner is single-shot: every request is its own paid call to Node. */
  singleShot?: SingleShotCaller;
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

/** The next request of a step: inside the session, or a freshly paid single-shot call. */
export async function openCall(
  context: StepContext,
  step: string,
  path: string,
  method: string,
): Promise<AppCall> {
  if (context.singleShot) return context.singleShot(step, path, method);
  return { url: `${context.appUrl}${path}`, headers: {}, sessionId: context.sessionId, paid: false };
}

/**
 * The fault of an unexpected answer: Node refusing a paid single-shot call's payment (402, 403) is
 * undecidable, as it is for a reservation; anything else is the target's.
 */
export function answerFault(call: AppCall, step: string, status: number): RunFault {
  if (call.paid && (status === 402 || status === 403))
    return unknownFault(`${step}-payment-refused`, `Node refused the signer's payment (${status})`);
  return unexpectedStatus(step, status);
}
