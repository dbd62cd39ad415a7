import type { AdapterDrainMode, RunnerState } from '@sandbox/protocol';
import type { RegistrationRecord } from '../state/registration-record';

/**
 * What a registration should look like at Node right now: heartbeating with a capacity (`capped`
 * when withdrawal or a drain limits it to the active sessions), or absent, and what finishes the
 * absence: `withdraw` (acknowledge `instance-withdraw`), `fail` (report the refusal), `park` (wait for
 * `resume`), `none` (already finished).
 */
export type RunnerTarget =
  | { kind: 'serve'; capacity: number; capped: boolean }
  | { kind: 'absent'; then: 'withdraw' | 'fail' | 'park' | 'none' };

/** What a target depends on: a registration's phase, withdrawal, spec and active session count. */
export type TargetInput = Pick<RegistrationRecord, 'phase' | 'withdrawal' | 'instance'> & {
  sessions: { readonly length: number };
};

/** Node accepts capacities from 1 to 10000. */
const MAX_CAPACITY = 10_000;

function cappedAtSessions(record: TargetInput): RunnerTarget {
  return { kind: 'serve', capacity: Math.min(MAX_CAPACITY, record.sessions.length), capped: true };
}

/**
 * The target of a registration under a drain mode. New work is stopped by capping `capacity` at the
 * active sessions (never through Node's `status`), and a runner without sessions is unregistered.
 */
export function runnerTarget(record: TargetInput, drain: AdapterDrainMode): RunnerTarget {
  switch (record.phase) {
    case 'withdrawn':
      return { kind: 'absent', then: 'none' };
    case 'failed':
      return { kind: 'absent', then: 'fail' };
    case 'withdrawing':
      if (record.withdrawal?.immediate === true || record.sessions.length === 0) {
        return { kind: 'absent', then: 'withdraw' };
      }
      return cappedAtSessions(record);
    case 'active':
      if (drain === 'cancelled') return { kind: 'absent', then: 'park' };
      if (drain === 'withdrawn') {
        return record.sessions.length === 0 ? { kind: 'absent', then: 'park' } : cappedAtSessions(record);
      }
      return { kind: 'serve', capacity: record.instance.capacity, capped: false };
  }
}

/** The state `GET /v1/runners` shows for a registration. */
export function runnerState(record: RegistrationRecord, target: RunnerTarget): RunnerState {
  if (record.phase === 'withdrawn') return 'withdrawn';
  if (record.phase === 'failed') return 'failed';
  if (target.kind === 'absent') {
    return record.node === null && target.then === 'park' ? 'parked' : 'unregistering';
  }
  if (record.node === null) return 'registering';
  return target.capped ? 'capped' : 'registered';
}
