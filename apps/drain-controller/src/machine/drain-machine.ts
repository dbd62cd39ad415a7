import {
  MAX_DRAIN_WINDOW_MS,
  TERMINAL_DRAIN_PHASES,
  type AdapterCommandResult,
  type DrainPhase,
  type DrainRecord,
  type DrainSessions,
  type DrainTarget,
} from '@sandbox/protocol';

/** What a step (or an operator) observed; {@link advance} turns it into the drain's next state. */
export type DrainEvent =
  | { type: 'withdrawn'; result: AdapterCommandResult }
  | { type: 'sessions'; sessions: DrainSessions }
  /** The sessions could not be known (no fresh view): never "none left". */
  | { type: 'sessions-unknown' }
  | { type: 'deadline' }
  | { type: 'cancelled'; result: AdapterCommandResult }
  | { type: 'replace-started' }
  | { type: 'replaced' }
  | { type: 'node-ready' }
  | { type: 'resumed'; result: AdapterCommandResult }
  /** The adapter did not complete the resume within its bound: the drain ends `failed` without it. */
  | { type: 'resume-timed-out'; reason: string }
  | { type: 'failed'; reason: string }
  | { type: 'abort' }
  | { type: 'extend'; byMs: number };

/** Why an operator's change was refused; the routes map each to an HTTP error. */
export type DrainRefusal = 'finished' | 'phase' | 'window-exceeded';

/** The outcome of {@link advance}: the new record (the same object when nothing changed) or a refusal. */
export type Advance = { record: DrainRecord } | { refused: DrainRefusal };

/** Phases before the orchestrator is touched: an abort resumes at once. */
const BEFORE_REPLACEMENT: readonly DrainPhase[] = ['withdrawing', 'draining', 'cancelling'];
const MAX_NOTE = 256;

export const isTerminal = (phase: DrainPhase): boolean => TERMINAL_DRAIN_PHASES.includes(phase);

/** A new drain, `withdrawing`, its deadline `windowMs` from `now`. */
export function newDrain(input: {
  id: string;
  reason: string;
  target: DrainTarget;
  windowMs: number;
  quietPeriodMs: number;
  now: number;
}): DrainRecord {
  const at = iso(input.now);
  return {
    id: input.id,
    phase: 'withdrawing',
    reason: input.reason,
    target: input.target,
    windowMs: input.windowMs,
    quietPeriodMs: input.quietPeriodMs,
    createdAt: at,
    deadline: iso(input.now + input.windowMs),
    outcome: null,
    abortRequestedAt: null,
    sessions: null,
    quietSince: null,
    runners: null,
    replacement: null,
    history: [{ phase: 'withdrawing', at }],
    lastError: null,
    finishedAt: null,
  };
}

/**
 * The drain's next state after `event` at `now`. Pure and idempotent: an event that does not apply to
 * the current phase (a retried step, a late delayed job) leaves the record unchanged, so a step
 * repeated after a crash never undoes a later one.
 */
export function advance(record: DrainRecord, event: DrainEvent, now: number): Advance {
  if (event.type === 'abort') return abort(record, now);
  if (event.type === 'extend') return extend(record, event.byMs, now);
  return { record: step(record, event, now) };
}

function step(record: DrainRecord, event: DrainEvent, now: number): DrainRecord {
  const { phase } = record;
  switch (event.type) {
    case 'withdrawn':
      if (phase !== 'withdrawing') return record;
      return moveTo({ ...record, runners: runnersOf(event.result) }, 'draining', now);
    case 'sessions':
      return phase === 'draining' ? observeSessions(record, event.sessions, now) : record;
    case 'sessions-unknown':
      // A quiet period counts only time in which Node was seen to show no session: it starts again.
      return phase === 'draining' && record.quietSince !== null ? { ...record, quietSince: null } : record;
    case 'deadline':
      if (phase !== 'withdrawing' && phase !== 'draining') return record;
      if (now < Date.parse(record.deadline)) return record;
      return moveTo(record, 'cancelling', now, 'window expired');
    case 'cancelled':
      if (phase !== 'cancelling') return record;
      return moveTo({ ...record, runners: runnersOf(event.result) }, 'replacing', now);
    case 'replace-started':
      if (phase !== 'replacing' || record.replacement !== null) return record;
      return { ...record, replacement: { startedAt: iso(now), completedAt: null } };
    case 'replaced':
      if (phase !== 'replacing') return record;
      return moveTo(
        {
          ...record,
          replacement: { startedAt: record.replacement?.startedAt ?? iso(now), completedAt: iso(now) },
        },
        'awaiting-node',
        now,
      );
    case 'node-ready':
      if (phase !== 'awaiting-node') return record;
      return resuming(record, record.abortRequestedAt === null ? 'done' : 'aborted', now);
    case 'resumed':
      if (phase !== 'resuming') return record;
      return finish({ ...record, runners: runnersOf(event.result) }, now);
    case 'resume-timed-out':
      if (phase !== 'resuming') return record;
      return finish(
        { ...record, outcome: 'failed', lastError: { message: truncate(event.reason), at: iso(now) } },
        now,
      );
    case 'failed':
      return fail(record, event.reason, now);
    default:
      return record;
  }
}

function observeSessions(record: DrainRecord, sessions: DrainSessions, now: number): DrainRecord {
  if (now >= Date.parse(record.deadline))
    return moveTo({ ...record, sessions }, 'cancelling', now, 'window expired');
  // A view the adapter took before its withdrawal completed (both stamps are the adapter's clock) may
  // miss a session reserved just before it: it proves nothing, so it counts as unknown.
  if (record.runners !== null && Date.parse(sessions.observedAt) < Date.parse(record.runners.at))
    return record.quietSince === null ? record : { ...record, quietSince: null };
  if (sessions.total > 0) return { ...record, sessions, quietSince: null };
  const quietSince = record.quietSince ?? iso(now);
  const quiet = { ...record, sessions, quietSince };
  if (now - Date.parse(quietSince) < record.quietPeriodMs) return quiet;
  return moveTo(quiet, 'cancelling', now, 'no session left');
}

/** A failure before `resuming` resumes with outcome `failed`; a failure while resuming is only recorded. */
function fail(record: DrainRecord, reason: string, now: number): DrainRecord {
  if (isTerminal(record.phase)) return record;
  const lastError = { message: truncate(reason), at: iso(now) };
  if (record.phase === 'resuming') return { ...record, lastError };
  return resuming({ ...record, lastError }, 'failed', now, truncate(`failed: ${reason}`));
}

function abort(record: DrainRecord, now: number): Advance {
  if (isTerminal(record.phase)) return { refused: 'finished' };
  if (record.abortRequestedAt !== null) return { record };
  const requested = { ...record, abortRequestedAt: iso(now) };
  if (BEFORE_REPLACEMENT.includes(record.phase))
    return { record: resuming(requested, 'aborted', now, 'aborted') };
  // The orchestrator is being replaced: finish that, then resume; the outcome becomes `aborted`.
  const outcome = record.outcome === 'done' ? 'aborted' : record.outcome;
  return { record: { ...requested, outcome } };
}

function extend(record: DrainRecord, byMs: number, now: number): Advance {
  if (isTerminal(record.phase)) return { refused: 'finished' };
  if (record.phase !== 'withdrawing' && record.phase !== 'draining') return { refused: 'phase' };
  const deadline = Date.parse(record.deadline) + byMs;
  if (deadline > Date.parse(record.createdAt) + MAX_DRAIN_WINDOW_MS) return { refused: 'window-exceeded' };
  if (deadline <= now) return { refused: 'phase' };
  return {
    record: { ...record, deadline: iso(deadline), windowMs: deadline - Date.parse(record.createdAt) },
  };
}

function resuming(record: DrainRecord, outcome: 'done' | 'aborted' | 'failed', now: number, note?: string) {
  return moveTo({ ...record, outcome }, 'resuming', now, note);
}

function finish(record: DrainRecord, now: number): DrainRecord {
  const terminal = record.outcome ?? 'done';
  return { ...moveTo(record, terminal, now), finishedAt: iso(now) };
}

function moveTo(record: DrainRecord, phase: DrainPhase, now: number, note?: string): DrainRecord {
  const change = { phase, at: iso(now), ...(note === undefined ? {} : { note }) };
  return { ...record, phase, history: [...record.history, change] };
}

function runnersOf(result: AdapterCommandResult): DrainRecord['runners'] {
  const { runners, registered, capped, unregistered, completedAt } = result;
  return { runners, registered, capped, unregistered, at: completedAt };
}

const iso = (ms: number): string => new Date(ms).toISOString();
/** Fits a reason in a record: no control characters, at most {@link MAX_NOTE} characters. */
function truncate(text: string): string {
  const clean = text.replace(/\p{Cc}+/gu, ' ').trim() || 'unknown error';
  return clean.length > MAX_NOTE ? `${clean.slice(0, MAX_NOTE - 1)}…` : clean;
}
