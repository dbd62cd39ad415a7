import { describe, expect, it } from '@jest/globals';
import type { RegistrationRecord } from '../state/registration-record';
import { runnerState, runnerTarget } from './runner-target';

const base: RegistrationRecord = {
  version: 1,
  instance: {
    instanceId: 'i',
    app: 'echo',
    url: 'http://10.0.0.1:80',
    capacity: 5,
    mode: 'persistent',
    kind: 'reusable',
    metadata: '',
    readyAt: '2025-01-01T00:00:00.000Z',
  },
  runnerId: 'i',
  phase: 'active',
  withdrawal: null,
  failure: null,
  node: null,
  sessions: [],
  pendingReleases: [],
  registeredOnce: false,
};
const link = {
  credential: 'c',
  orchestrator: 'http://node',
  intervalMs: 5_000,
  ttlMs: 30_000,
  o2rUrl: null,
  o2rSeq: 0,
};
const withdrawal = (immediate: boolean) => ({
  reason: 'r',
  immediate,
  requestedAt: '2025-01-01T00:00:00.000Z',
});

describe('runnerTarget', () => {
  it('serves the spec capacity while open', () => {
    expect(runnerTarget(base, 'open')).toEqual({ kind: 'serve', capacity: 5, capped: false });
  });

  it('caps at the active sessions, never below one, and unregisters idle runners when withdrawing or draining', () => {
    const busy = { ...base, sessions: ['a', 'b'] };
    expect(runnerTarget(busy, 'withdrawn')).toEqual({ kind: 'serve', capacity: 2, capped: true });
    expect(runnerTarget(base, 'withdrawn')).toEqual({ kind: 'absent', then: 'park' });
    expect(runnerTarget(busy, 'cancelled')).toEqual({ kind: 'absent', then: 'park' });
    const withdrawing = { ...busy, phase: 'withdrawing' as const, withdrawal: withdrawal(false) };
    expect(runnerTarget(withdrawing, 'open')).toEqual({ kind: 'serve', capacity: 2, capped: true });
    expect(runnerTarget({ ...withdrawing, sessions: [] }, 'open')).toEqual({
      kind: 'absent',
      then: 'withdraw',
    });
    expect(runnerTarget({ ...withdrawing, withdrawal: withdrawal(true) }, 'open')).toEqual({
      kind: 'absent',
      then: 'withdraw',
    });
  });

  it('keeps failed and withdrawn registrations away from Node', () => {
    expect(runnerTarget({ ...base, phase: 'failed' }, 'open')).toEqual({ kind: 'absent', then: 'fail' });
    expect(runnerTarget({ ...base, phase: 'withdrawn' }, 'open')).toEqual({ kind: 'absent', then: 'none' });
  });
});

describe('runnerState', () => {
  it('names where the registration stands', () => {
    const state = (record: RegistrationRecord, drain: 'open' | 'withdrawn' | 'cancelled' = 'open') =>
      runnerState(record, runnerTarget(record, drain));
    expect(state(base)).toBe('registering');
    expect(state({ ...base, node: link })).toBe('registered');
    expect(state({ ...base, node: link, sessions: ['a'] }, 'withdrawn')).toBe('capped');
    expect(state({ ...base, node: link }, 'cancelled')).toBe('unregistering');
    expect(state(base, 'cancelled')).toBe('parked');
    expect(state({ ...base, phase: 'withdrawing', withdrawal: withdrawal(true) })).toBe('unregistering');
    expect(state({ ...base, phase: 'withdrawn' })).toBe('withdrawn');
    expect(state({ ...base, phase: 'failed' })).toBe('failed');
  });
});
