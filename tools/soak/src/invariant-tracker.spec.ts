import { describe, expect, it } from '@jest/globals';
import { InvariantTracker } from './invariant-tracker';
import type { SystemSnapshot } from './system-snapshot';

const START = 1_000_000;
const bounds = {
  unregisteredMs: 10_000,
  registeredForGoneMs: 5_000,
  nodeExcessMs: 8_000,
  drainTerminalAfterDeadlineMs: 20_000,
};
const snap = (offsetMs: number, fields: Partial<SystemSnapshot> = {}): SystemSnapshot => ({
  atMs: START + offsetMs,
  instances: [{ instanceId: 'i1', app: 'echo', state: 'ready' }],
  registrations: [{ instanceId: 'i1', runnerId: 'r1', state: 'registered' }],
  drainMode: 'open',
  nodeRunners: 1,
  unreadyMembers: [],
  drains: [],
  ...fields,
});

describe('InvariantTracker', () => {
  it('finds nothing in a whole system', () => {
    const tracker = new InvariantTracker(START, bounds);
    for (let t = 0; t <= 60_000; t += 2_000) tracker.observe(snap(t));
    tracker.finish(START + 60_000);
    expect(tracker.violations).toEqual([]);
  });

  it('reports a ready instance unregistered past its bound once, not within it', () => {
    const tracker = new InvariantTracker(START, bounds);
    const unregistered = { registrations: [], nodeRunners: 0 };
    for (let t = 0; t <= 10_000; t += 2_000) tracker.observe(snap(t, unregistered));
    expect(tracker.violations).toEqual([]);
    for (let t = 12_000; t <= 30_000; t += 2_000) tracker.observe(snap(t, unregistered));
    expect(tracker.violations).toEqual([
      { invariant: 'instance-without-registration', atMs: 12_000, detail: expect.stringContaining('i1') },
    ]);
  });

  it('does not count withdrawn registrations during a drain, nor an unreadable moment as cleared', () => {
    const tracker = new InvariantTracker(START, bounds);
    for (let t = 0; t <= 30_000; t += 2_000)
      tracker.observe(snap(t, { registrations: [], nodeRunners: 0, drainMode: 'withdrawn' }));
    expect(tracker.violations).toEqual([]);
    tracker.observe(snap(32_000, { registrations: [], nodeRunners: 0 }));
    tracker.observe(snap(38_000, { registrations: undefined }));
    tracker.observe(snap(43_000, { registrations: [], nodeRunners: 0 }));
    expect(tracker.violations.map((v) => v.invariant)).toEqual(['instance-without-registration']);
  });

  it('reports a registration kept for a gone instance, and a runner id shared by two instances', () => {
    const tracker = new InvariantTracker(START, bounds);
    const gone = { instances: [{ instanceId: 'i1', app: 'echo', state: 'gone' as const }] };
    for (let t = 0; t <= 6_000; t += 2_000) tracker.observe(snap(t, gone));
    tracker.observe(
      snap(8_000, {
        instances: [
          { instanceId: 'i1', app: 'echo', state: 'ready' },
          { instanceId: 'i2', app: 'echo', state: 'ready' },
        ],
        registrations: [
          { instanceId: 'i1', runnerId: 'r1', state: 'registered' },
          { instanceId: 'i2', runnerId: 'r1', state: 'registered' },
        ],
        nodeRunners: 2,
      }),
    );
    expect(tracker.violations.map((v) => v.invariant)).toEqual([
      'registered-for-gone-instance',
      'runner-registered-twice',
    ]);
  });

  it('reports Node holding more runners than registered past the heartbeat bound', () => {
    const tracker = new InvariantTracker(START, bounds);
    for (let t = 0; t <= 8_000; t += 2_000) tracker.observe(snap(t, { nodeRunners: 2 }));
    expect(tracker.violations).toEqual([]);
    tracker.observe(snap(10_000, { nodeRunners: 2 }));
    expect(tracker.violations).toEqual([
      {
        invariant: 'runner-registered-twice',
        atMs: 10_000,
        detail: 'Node holds 2 runners for 1 registrations',
      },
    ]);
  });

  it('holds drains to be terminal after their deadline and at the end of the run', () => {
    const tracker = new InvariantTracker(START, bounds);
    const drain = (phase: 'draining' | 'done', id = 'd1') => ({ id, phase, deadlineMs: START + 5_000 });
    tracker.observe(snap(0, { drains: [drain('draining'), drain('draining', 'd2')] }));
    tracker.observe(snap(20_000, { drains: [drain('draining'), drain('done', 'd2')] }));
    expect(tracker.violations).toEqual([]);
    tracker.observe(snap(26_000, { drains: [drain('draining'), drain('done', 'd2')] }));
    tracker.finish(START + 30_000);
    expect(tracker.violations).toEqual([
      { invariant: 'drain-terminal', atMs: 26_000, detail: 'drain d1 is still draining past its deadline' },
      { invariant: 'drain-terminal', atMs: 30_000, detail: 'drain d1 ended the run draining' },
    ]);
  });
});
