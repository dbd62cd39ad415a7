import { describe, expect, it } from '@jest/globals';
import {
  MAX_DRAIN_WINDOW_MS,
  type AdapterCommandResult,
  type DrainRecord,
  type DrainSessions,
} from '@sandbox/protocol';
import { advance, newDrain, type DrainEvent } from './drain-machine';

const T0 = Date.parse('2026-06-01T03:00:00.000Z');
const HOUR = 3_600_000;

const result = (command: AdapterCommandResult['command']): AdapterCommandResult => ({
  command,
  drainId: 'drain-1',
  runners: 3,
  registered: command === 'resume' ? 3 : 0,
  capped: command === 'withdraw-all' ? 2 : 0,
  unregistered: command === 'withdraw-all' ? 1 : command === 'cancel-sessions' ? 3 : 0,
  activeSessions: 2,
  completedAt: new Date(T0).toISOString(),
});

const sessions = (total: number, at: number): DrainSessions => ({
  total,
  byApp: total === 0 ? {} : { echo: total },
  observedAt: new Date(at).toISOString(),
});

function drain(overrides: { windowMs?: number; quietPeriodMs?: number } = {}): DrainRecord {
  return newDrain({
    id: 'drain-1',
    reason: 'upgrade',
    target: { restart: true },
    windowMs: overrides.windowMs ?? 6 * HOUR,
    quietPeriodMs: overrides.quietPeriodMs ?? 30_000,
    now: T0,
  });
}

/** Applies events in order at the given times; fails on a refusal. */
function run(record: DrainRecord, steps: Array<[DrainEvent, number]>): DrainRecord {
  return steps.reduce((current, [event, at]) => {
    const next = advance(current, event, at);
    if ('refused' in next) throw new Error(`refused ${next.refused}`);
    return next.record;
  }, record);
}

const draining = () => run(drain(), [[{ type: 'withdrawn', result: result('withdraw-all') }, T0 + 1_000]]);

describe('the drain phases', () => {
  it('goes withdrawing → draining → cancelling → replacing → awaiting-node → resuming → done', () => {
    const done = run(drain({ quietPeriodMs: 0 }), [
      [{ type: 'withdrawn', result: result('withdraw-all') }, T0 + 1_000],
      [{ type: 'sessions', sessions: sessions(0, T0 + 2_000) }, T0 + 2_000],
      [{ type: 'cancelled', result: result('cancel-sessions') }, T0 + 3_000],
      [{ type: 'replace-started' }, T0 + 4_000],
      [{ type: 'replaced' }, T0 + 5_000],
      [{ type: 'node-ready' }, T0 + 6_000],
      [{ type: 'resumed', result: result('resume') }, T0 + 7_000],
    ]);
    expect(done.history.map((change) => change.phase)).toEqual([
      'withdrawing',
      'draining',
      'cancelling',
      'replacing',
      'awaiting-node',
      'resuming',
      'done',
    ]);
    expect(done.history[2]?.note).toBe('no session left');
    expect(done.replacement).toEqual({
      startedAt: new Date(T0 + 4_000).toISOString(),
      completedAt: new Date(T0 + 5_000).toISOString(),
    });
    expect(done.finishedAt).toBe(new Date(T0 + 7_000).toISOString());
    expect(done.runners?.registered).toBe(3);
  });

  it('keeps draining while sessions remain, and waits the quiet period once they end', () => {
    let record = run(draining(), [[{ type: 'sessions', sessions: sessions(2, T0 + 2_000) }, T0 + 2_000]]);
    expect(record.phase).toBe('draining');
    expect(record.sessions?.byApp).toEqual({ echo: 2 });
    record = run(record, [[{ type: 'sessions', sessions: sessions(0, T0 + 10_000) }, T0 + 10_000]]);
    expect(record).toMatchObject({ phase: 'draining', quietSince: new Date(T0 + 10_000).toISOString() });
    // A session seen again resets the quiet period.
    record = run(record, [[{ type: 'sessions', sessions: sessions(1, T0 + 20_000) }, T0 + 20_000]]);
    expect(record.quietSince).toBeNull();
    record = run(record, [
      [{ type: 'sessions', sessions: sessions(0, T0 + 30_000) }, T0 + 30_000],
      [{ type: 'sessions', sessions: sessions(0, T0 + 59_999) }, T0 + 59_999],
    ]);
    expect(record.phase).toBe('draining');
    record = run(record, [[{ type: 'sessions', sessions: sessions(0, T0 + 60_000) }, T0 + 60_000]]);
    expect(record.phase).toBe('cancelling');
  });

  it('never moves on while the sessions are unknown, and restarts the quiet period after one', () => {
    let record = run(draining(), [[{ type: 'sessions', sessions: sessions(0, T0 + 10_000) }, T0 + 10_000]]);
    expect(record.quietSince).toBe(new Date(T0 + 10_000).toISOString());
    record = run(record, [[{ type: 'sessions-unknown' }, T0 + 50_000]]);
    expect(record).toMatchObject({ phase: 'draining', quietSince: null });
    // The last known count stays on the record; only the quiet period starts again.
    expect(record.sessions?.total).toBe(0);
    record = run(record, [
      [{ type: 'sessions', sessions: sessions(0, T0 + 60_000) }, T0 + 60_000],
      [{ type: 'sessions', sessions: sessions(0, T0 + 89_999) }, T0 + 89_999],
    ]);
    expect(record.phase).toBe('draining');
    record = run(record, [[{ type: 'sessions', sessions: sessions(0, T0 + 90_000) }, T0 + 90_000]]);
    expect(record.phase).toBe('cancelling');
    // A view taken before the withdrawal completed (T0 in the adapter's result) counts as unknown too.
    const early = run(draining(), [
      [{ type: 'sessions', sessions: sessions(0, T0 + 10_000) }, T0 + 10_000],
      [{ type: 'sessions', sessions: sessions(0, T0 - 1) }, T0 + 20_000],
    ]);
    expect(early).toMatchObject({ phase: 'draining', quietSince: null });
    expect(early.sessions?.observedAt).toBe(new Date(T0 + 10_000).toISOString());
    // Outside draining an unknown changes nothing.
    expect(advance(record, { type: 'sessions-unknown' }, T0 + 91_000)).toEqual({ record });
  });

  it('cancels at the deadline and not a millisecond before', () => {
    const before = run(draining(), [[{ type: 'deadline' }, T0 + 6 * HOUR - 1]]);
    expect(before.phase).toBe('draining');
    const at = run(before, [[{ type: 'deadline' }, T0 + 6 * HOUR]]);
    expect(at.phase).toBe('cancelling');
    expect(at.history.at(-1)?.note).toBe('window expired');
    const late = run(draining(), [
      [{ type: 'sessions', sessions: sessions(4, T0 + 7 * HOUR) }, T0 + 7 * HOUR],
    ]);
    expect(late.phase).toBe('cancelling');
  });

  it('lets the deadline cut a withdrawal that never completed', () => {
    expect(run(drain(), [[{ type: 'deadline' }, T0 + 6 * HOUR]]).phase).toBe('cancelling');
  });

  it('ignores events of other phases (retried steps, late jobs) without undoing anything', () => {
    const replacing = run(draining(), [
      [{ type: 'deadline' }, T0 + 6 * HOUR],
      [{ type: 'cancelled', result: result('cancel-sessions') }, T0 + 6 * HOUR + 1],
    ]);
    const late: DrainEvent[] = [
      { type: 'withdrawn', result: result('withdraw-all') },
      { type: 'sessions', sessions: sessions(0, T0) },
      { type: 'deadline' },
      { type: 'cancelled', result: result('cancel-sessions') },
      { type: 'node-ready' },
      { type: 'resumed', result: result('resume') },
    ];
    for (const event of late) {
      expect(advance(replacing, event, T0 + 7 * HOUR)).toEqual({ record: replacing });
    }
    const started = run(replacing, [[{ type: 'replace-started' }, T0 + 7 * HOUR]]);
    expect(advance(started, { type: 'replace-started' }, T0 + 8 * HOUR)).toEqual({ record: started });
  });

  it('fails with the reason and resumes; a failure while resuming is only recorded', () => {
    const failed = run(drain(), [[{ type: 'failed', reason: 'adapter withdraw-all failed:\nboom' }, T0 + 1]]);
    expect(failed).toMatchObject({
      phase: 'resuming',
      outcome: 'failed',
      lastError: { message: 'adapter withdraw-all failed: boom' },
    });
    const again = run(failed, [[{ type: 'failed', reason: 'later' }, T0 + 2]]);
    expect(again.phase).toBe('resuming');
    expect(again.lastError?.message).toBe('later');
    expect(run(again, [[{ type: 'resumed', result: result('resume') }, T0 + 3]]).phase).toBe('failed');
  });

  it('ends failed when the resume is not completed in time, whatever the outcome was', () => {
    const resuming = run(drain(), [[{ type: 'abort' }, T0 + 1]]);
    expect(resuming).toMatchObject({ phase: 'resuming', outcome: 'aborted' });
    const ended = run(resuming, [[{ type: 'resume-timed-out', reason: 'no resume' }, T0 + 2]]);
    expect(ended).toMatchObject({
      phase: 'failed',
      outcome: 'failed',
      lastError: { message: 'no resume', at: new Date(T0 + 2).toISOString() },
      finishedAt: new Date(T0 + 2).toISOString(),
    });
    // Only a resuming drain ends this way; a late one changes nothing.
    expect(advance(ended, { type: 'resume-timed-out', reason: 'late' }, T0 + 3)).toEqual({ record: ended });
    const early = draining();
    expect(advance(early, { type: 'resume-timed-out', reason: 'x' }, T0 + 3)).toEqual({ record: early });
  });
});

describe('abort', () => {
  it.each(['withdrawing', 'draining', 'cancelling'] as const)('in %s resumes at once', (phase) => {
    const records = {
      withdrawing: drain(),
      draining: draining(),
      cancelling: run(draining(), [[{ type: 'deadline' }, T0 + 6 * HOUR]]),
    };
    const aborted = run(records[phase], [[{ type: 'abort' }, T0 + 7 * HOUR]]);
    expect(aborted).toMatchObject({ phase: 'resuming', outcome: 'aborted' });
    expect(run(aborted, [[{ type: 'resumed', result: result('resume') }, T0 + 8 * HOUR]]).phase).toBe(
      'aborted',
    );
  });

  it.each(['replacing', 'awaiting-node'] as const)(
    'in %s finishes the replacement, then resumes',
    (phase) => {
      const replacing = run(draining(), [
        [{ type: 'deadline' }, T0 + 6 * HOUR],
        [{ type: 'cancelled', result: result('cancel-sessions') }, T0 + 6 * HOUR],
      ]);
      const record =
        phase === 'replacing' ? replacing : run(replacing, [[{ type: 'replaced' }, T0 + 6 * HOUR]]);
      const requested = run(record, [[{ type: 'abort' }, T0 + 6 * HOUR]]);
      expect(requested.phase).toBe(phase);
      expect(requested.abortRequestedAt).not.toBeNull();
      const end = run(requested, [
        [{ type: 'replaced' }, T0 + 6 * HOUR + 1],
        [{ type: 'node-ready' }, T0 + 6 * HOUR + 2],
        [{ type: 'resumed', result: result('resume') }, T0 + 6 * HOUR + 3],
      ]);
      expect(end.phase).toBe('aborted');
    },
  );

  it('is refused once the drain has ended', () => {
    const done = run(drain(), [
      [{ type: 'abort' }, T0],
      [{ type: 'resumed', result: result('resume') }, T0],
    ]);
    expect(advance(done, { type: 'abort' }, T0)).toEqual({ refused: 'finished' });
  });
});

describe('extend', () => {
  it('moves the deadline, up to 12 h after the start', () => {
    const extended = run(draining(), [[{ type: 'extend', byMs: 6 * HOUR }, T0 + HOUR]]);
    expect(extended.deadline).toBe(new Date(T0 + MAX_DRAIN_WINDOW_MS).toISOString());
    expect(extended.windowMs).toBe(MAX_DRAIN_WINDOW_MS);
    expect(advance(extended, { type: 'extend', byMs: 1 }, T0 + HOUR)).toEqual({ refused: 'window-exceeded' });
  });

  it('is refused after draining and once ended', () => {
    const cancelling = run(draining(), [[{ type: 'deadline' }, T0 + 6 * HOUR]]);
    expect(advance(cancelling, { type: 'extend', byMs: HOUR }, T0 + 6 * HOUR)).toEqual({ refused: 'phase' });
    const done = run(drain(), [
      [{ type: 'abort' }, T0],
      [{ type: 'resumed', result: result('resume') }, T0],
    ]);
    expect(advance(done, { type: 'extend', byMs: HOUR }, T0)).toEqual({ refused: 'finished' });
  });

  it('cannot revive a deadline that has already passed', () => {
    const record = drain({ windowMs: HOUR });
    expect(advance(record, { type: 'extend', byMs: HOUR }, T0 + 3 * HOUR)).toEqual({ refused: 'phase' });
  });
});
