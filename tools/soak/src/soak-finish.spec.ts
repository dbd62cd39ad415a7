import { describe, expect, it } from '@jest/globals';
import { InvariantTracker } from './invariant-tracker';
import { RecoveryTimer } from './recovery-timer';
import { ledgerViolations, RECOVERY_BOUND_MS, recoveryViolations, sessionViolations } from './soak-finish';
import type { FaultRecord } from './soak-report';
import type { RunResult } from './soak-run';

const START = 1_000_000;
const record = (kind: FaultRecord['kind'], target: string, atMs: number): FaultRecord => ({
  kind,
  target,
  at: 'x',
  atMs,
  durationMs: 0,
});

function result(records: FaultRecord[]): RunResult {
  return {
    records,
    tracker: new InvariantTracker(START),
    recovery: new RecoveryTimer(),
    tally: { sessions: 0, failures: 0, held: [], lastErrors: [] },
    drainDeadlinesMs: new Set(),
    memberPids: new Set(),
    clientPids: new Set(),
  };
}

describe('ledgerViolations', () => {
  it('turns lost and twice-submitted winners into violations, and an unread ledger into one', () => {
    const comparison = {
      produced: 3,
      atRedeemer: 2,
      lost: ['0xa'],
      submittedTwice: ['0xb'],
      undecided: ['0xc'],
      unknown: [],
      duplicateDeliveries: 4,
      outcomes: {},
    };
    expect(ledgerViolations(comparison, 5).map((v) => [v.invariant, v.detail])).toEqual([
      ['winner-lost', 'winner 0xa never reached the redeemer'],
      ['winner-submitted-twice', 'winner 0xb was submitted more than once'],
    ]);
    expect(ledgerViolations({ ...comparison, lost: [], submittedTwice: [] }, 5)).toEqual([]);
    expect(ledgerViolations(undefined, 5)).toEqual([
      { invariant: 'winner-ledger', atMs: 5, detail: 'the redeemer ledger could not be read' },
    ]);
  });
});

describe('recoveryViolations', () => {
  it('fills in recovery times and reports faults not recovered within the bound', () => {
    const records = [
      record('kill-member', 'redis', 10_000),
      record('drain', 'node', 20_000),
      record('kill-member', 'adapter', 30_000),
    ];
    const run = result(records);
    run.recovery.begin(0, START + 10_000);
    run.recovery.observe(START + 15_000, []);
    run.recovery.begin(1, START + 20_000);
    run.recovery.observe(START + 20_000 + RECOVERY_BOUND_MS + 1_000, []);
    run.recovery.begin(2, START + 30_000);
    const violations = recoveryViolations(records, run, START + 30_000 + RECOVERY_BOUND_MS + 1, START);
    expect(records.map((r) => r.recoveryMs)).toEqual([5_000, RECOVERY_BOUND_MS + 1_000, undefined]);
    expect(violations.map((v) => [v.invariant, v.atMs])).toEqual([
      ['recovery-bound', 20_000],
      ['recovery-bound', 30_000],
    ]);
  });

  it('does not judge a fault the run ended too soon after', () => {
    const records = [record('kill-member', 'redis', 10_000)];
    const run = result(records);
    run.recovery.begin(0, START + 10_000);
    expect(recoveryViolations(records, run, START + 60_000, START)).toEqual([]);
  });
});

describe('sessionViolations', () => {
  it('checks every held session against the faults and the drain deadlines', () => {
    const run = result([record('kill-member', 'node-sim', 12_000)]);
    run.drainDeadlinesMs.add(START + 45_000);
    const held = (startMs: number, cut?: string) => ({
      app: 'echo',
      startMs: START + startMs,
      endMs: START + startMs + 5_000,
      holdMs: 30_000,
      ...(cut === undefined ? {} : { cut }),
    });
    run.tally.held.push(held(10_000, 'reset'), held(20_000, 'reset'), held(42_000, 'reset'), held(60_000));
    expect(sessionViolations(run, START).map((v) => v.atMs)).toEqual([25_000]);
  });
});
