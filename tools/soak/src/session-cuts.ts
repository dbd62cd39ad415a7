import type { FaultRecord, Violation } from './soak-report';

/** A held session as a client saw it: reserved, streamed, and ended (cut or on its own). */
export interface HeldSession {
  app: string;
  startMs: number;
  endMs: number;
  /** How long the client meant to hold it. */
  holdMs: number;
  /** Why the stream ended early, when it did (undefined: held to its end). */
  cut?: string;
}

/** Which faults may cut a session of `app`: Node itself going away, or the app's own process killed. */
function excuses(fault: FaultRecord, app: string): boolean {
  if (fault.skipped !== undefined) return false;
  if (fault.kind === 'kill-app-process') return fault.target === app;
  return fault.target === 'node-sim' && fault.kind !== 'drain';
}

/**
 * A session cut before its own end is a violation unless a drain's deadline passed while it ran, or a
 * fault that takes sessions with it (Node killed, stopped or kept down; the app's process killed)
 * fell inside it (with `graceMs` of slack for the cut to be noticed).
 */
export function sessionCutViolation(
  session: HeldSession,
  faults: readonly FaultRecord[],
  drainDeadlinesMs: readonly number[],
  runStartMs: number,
  graceMs = 5_000,
): Violation | undefined {
  if (session.cut === undefined) return undefined;
  const from = session.startMs - runStartMs;
  const to = session.endMs - runStartMs;
  const excused =
    drainDeadlinesMs.some((deadline) => deadline >= session.startMs && deadline <= session.endMs + graceMs) ||
    faults.some(
      (fault) =>
        excuses(fault, session.app) &&
        fault.atMs <= to + graceMs &&
        fault.atMs + fault.durationMs >= from - graceMs,
    );
  if (excused) return undefined;
  return {
    invariant: 'session-cut-early',
    atMs: to,
    detail: `a session of ${session.app} held for ${Math.round((session.endMs - session.startMs) / 1000)} s of ${Math.round(session.holdMs / 1000)} s was cut (${session.cut}) with no drain deadline or Node fault in between`,
  };
}
