import { describe, expect, it } from '@jest/globals';
import { RecoveryTimer } from './recovery-timer';
import { sessionCutViolation, type HeldSession } from './session-cuts';
import type { FaultRecord } from './soak-report';
import { shortPools, unwholeReasons, type SystemSnapshot } from './system-snapshot';

const snapshot: SystemSnapshot = {
  atMs: 0,
  instances: [
    { instanceId: 'a1', app: 'pool', state: 'ready' },
    { instanceId: 'a2', app: 'pool', state: 'taken' },
    { instanceId: 'b1', app: 'echo', state: 'ready' },
  ],
  registrations: [
    { instanceId: 'a1', runnerId: 'r1', state: 'registered' },
    { instanceId: 'b1', runnerId: 'r2', state: 'capped' },
  ],
  nodeRunners: 2,
  unreadyMembers: [],
};

describe('unwholeReasons', () => {
  it('is empty for a whole system and names each missing part otherwise', () => {
    expect(unwholeReasons(snapshot, { pool: 1, echo: 1 })).toEqual([]);
    expect(shortPools(snapshot, { pool: 2 })).toEqual(['pool']);
    expect(
      unwholeReasons({ ...snapshot, nodeRunners: 3, unreadyMembers: ['redis'] }, { pool: 2, echo: 1 }),
    ).toEqual(['redis not ready', 'pool of pool short', 'Node and adapter disagree on runners']);
    expect(
      unwholeReasons({ ...snapshot, instances: undefined, registrations: undefined }, { pool: 1 }),
    ).toEqual(['pool of pool short', 'registrations unreadable']);
  });
});

describe('RecoveryTimer', () => {
  it('times each fault from its end to the first whole snapshot', () => {
    const timer = new RecoveryTimer();
    timer.begin(1, 1_000);
    timer.observe(500, []);
    timer.begin(2, 3_000);
    timer.observe(2_000, ['adapter not ready']);
    timer.observe(2_500, []);
    expect(timer.recoveryMs(1)).toBe(1_500);
    expect(timer.pending()).toEqual([[2, 3_000]]);
    timer.observe(7_000, []);
    expect(timer.recoveryMs(2)).toBe(4_000);
  });

  it('counts a condition that cleared once since the fault as recovered, a new one as open', () => {
    const timer = new RecoveryTimer();
    timer.begin(1, 0);
    timer.observe(1_000, ['pool of a short', 'adapter not ready']);
    timer.observe(2_000, ['adapter not ready']);
    timer.observe(3_000, ['pool of a short', 'Node and adapter disagree on runners']);
    expect(timer.pending()).toEqual([[1, 0]]);
    timer.observe(4_000, ['pool of a short']);
    expect(timer.recoveryMs(1)).toBe(4_000);
  });
});

describe('sessionCutViolation', () => {
  const START = 100_000;
  const session: HeldSession = {
    app: 'echo',
    startMs: START + 10_000,
    endMs: START + 20_000,
    holdMs: 30_000,
    cut: 'reset',
  };
  const fault = (kind: FaultRecord['kind'], target: string, atMs: number): FaultRecord => ({
    kind,
    target,
    atMs,
    at: 'x',
    durationMs: 0,
  });

  it('passes a session held to its end', () => {
    expect(sessionCutViolation({ ...session, cut: undefined }, [], [], START)).toBeUndefined();
  });

  it('reports a cut with no excuse, even with unrelated faults around', () => {
    const violation = sessionCutViolation(
      session,
      [fault('kill-member', 'redis', 15_000), fault('kill-app-process', 'other', 15_000)],
      [],
      START,
    );
    expect(violation).toMatchObject({ invariant: 'session-cut-early', atMs: 20_000 });
  });

  it('excuses a cut by Node killed, by the app process killed, or by a drain deadline', () => {
    expect(
      sessionCutViolation(session, [fault('kill-member', 'node-sim', 18_000)], [], START),
    ).toBeUndefined();
    expect(
      sessionCutViolation(session, [fault('kill-app-process', 'echo', 12_000)], [], START),
    ).toBeUndefined();
    expect(sessionCutViolation(session, [], [START + 19_000], START)).toBeUndefined();
    expect(
      sessionCutViolation(
        session,
        [{ ...fault('kill-member', 'node-sim', 18_000), skipped: 'x' }],
        [],
        START,
      ),
    ).toBeDefined();
  });
});
