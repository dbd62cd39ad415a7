import type { RunnerError, RunnerView } from '@sandbox/protocol';
import type { RegistrationRecord } from '../state/registration-record';
import type { HeartbeatSender } from '../node/heartbeat-sender';
import { runnerState, type RunnerTarget } from '../drain/runner-target';
import type { SessionTracker } from '../sessions/session-tracker';

/** What a view is built from (a `RunnerAgent`). */
export interface ViewSource {
  record: RegistrationRecord;
  tracker: SessionTracker;
  link: HeartbeatSender;
  lastBeat: { at: number; latencyMs: number; capacity: number } | undefined;
  lastError: RunnerError | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The API view of a registration. Built field by field from an allow-list: no credential can slip in. */
export function buildRunnerView(source: ViewSource, target: RunnerTarget): RunnerView {
  const { record, tracker, link } = source;
  const node = record.node;
  const lastMessageAt = link.o2r.subscriber?.lastMessageAt;
  return {
    instanceId: record.instance.instanceId,
    app: record.instance.app,
    runnerId: record.runnerId,
    state: runnerState({ ...record, sessions: tracker.ids() }, target),
    capacity: record.instance.capacity,
    advertisedCapacity: node !== null && source.lastBeat !== undefined ? source.lastBeat.capacity : null,
    lastBeat:
      source.lastBeat === undefined
        ? null
        : { at: iso(source.lastBeat.at), latencyMs: Math.round(source.lastBeat.latencyMs * 1_000) / 1_000 },
    heartbeat: node === null ? null : { intervalMs: node.intervalMs, ttlMs: node.ttlMs },
    sessions: tracker.ids(),
    o2r: {
      connected: link.o2r.connected,
      lastMessageAt: lastMessageAt === undefined ? null : iso(lastMessageAt),
    },
    lastError: source.lastError === undefined ? null : { ...source.lastError },
    failure:
      record.failure === null
        ? null
        : { status: record.failure.status, reason: record.failure.reason, at: record.failure.at },
    withdrawal: record.withdrawal === null ? null : { ...record.withdrawal },
  };
}
