import type {
  RegistrationFailed,
  RunnerWithdrawn,
  SESSION_EVENTS_QUEUE,
  SessionEvent,
} from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';

/** What the adapter tells instance-manager, on the `session-events` queue. */
export interface SessionEventsPublisher {
  reserved(event: SessionEvent): Promise<void>;
  released(event: SessionEvent): Promise<void>;
  withdrawn(event: RunnerWithdrawn): Promise<void>;
  registrationFailed(event: RegistrationFailed): Promise<void>;
}

/**
 * Deterministic job ids, so that the same fact reported twice (an O2R event and a heartbeat
 * reconciliation, a replay after a restart) is one job. Persistent: instance-manager's dedupe and
 * the dashboard rely on them. BullMQ forbids `:` in custom ids, hence the dots.
 */
export const SessionEventJobId = {
  reserved: (runnerId: string, sessionId: string) => `session-reserved.${runnerId}.${sessionId}`,
  released: (runnerId: string, sessionId: string) => `session-released.${runnerId}.${sessionId}`,
  withdrawn: (instanceId: string) => `runner-withdrawn.${instanceId}`,
  registrationFailed: (instanceId: string) => `registration-failed.${instanceId}`,
} as const;

/** Publishes on `session-events`; each call rejects (503 `UnavailableError`) when Redis cannot take the job. */
export function createSessionEventsPublisher(
  producer: Producer<typeof SESSION_EVENTS_QUEUE>,
): SessionEventsPublisher {
  return {
    async reserved(event) {
      await producer.add('session-reserved', event, {
        jobId: SessionEventJobId.reserved(event.runnerId, event.sessionId),
      });
    },
    async released(event) {
      await producer.add('session-released', event, {
        jobId: SessionEventJobId.released(event.runnerId, event.sessionId),
      });
    },
    async withdrawn(event) {
      await producer.add('runner-withdrawn', event, { jobId: SessionEventJobId.withdrawn(event.instanceId) });
    },
    async registrationFailed(event) {
      await producer.add('registration-failed', event, {
        jobId: SessionEventJobId.registrationFailed(event.instanceId),
      });
    },
  };
}
