import { z } from 'zod';
import { defineQueue } from '../queue-definition';
import { InstanceIdSchema, ReasonSchema, RunnerIdSchema, SessionIdSchema, TimestampSchema } from '../common';

/**
 * How the adapter learned of a session change: an O2R event, the authoritative `session_ids` of a
 * heartbeat response (missed events), a re-registration after Node restarted (Node's sessions are gone),
 * or the adapter unregistering the runner (Node releases every session of it).
 */
export const SessionEventSourceSchema = z.enum(['o2r', 'heartbeat-reconcile', 're-register', 'unregister']);
export type SessionEventSource = z.infer<typeof SessionEventSourceSchema>;

/** One session of one runner started or ended, as Node reports it. */
export const SessionEventSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  runnerId: RunnerIdSchema,
  sessionId: SessionIdSchema,
  /** When the change happened: Node's O2R timestamp, else when the adapter noticed it. */
  at: TimestampSchema,
  source: SessionEventSourceSchema,
});
export type SessionEvent = z.infer<typeof SessionEventSchema>;

/** A client reserved a session on the instance's runner. */
export const SessionReservedSchema = SessionEventSchema;
export type SessionReserved = SessionEvent;

/** A session on the instance's runner ended. */
export const SessionReleasedSchema = SessionEventSchema;
export type SessionReleased = SessionEvent;

/**
 * The adapter finished withdrawing an instance (answering `instance-withdraw`): its runner is
 * unregistered from Node, so no session can reach it any more and it may be destroyed.
 */
export const RunnerWithdrawnSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  runnerId: RunnerIdSchema,
  at: TimestampSchema,
});
export type RunnerWithdrawn = z.infer<typeof RunnerWithdrawnSchema>;

/**
 * Node refused to register an instance for good (400 or 403, Node's reason attached). The instance
 * will never receive work; instance-manager replaces or fails it.
 */
export const RegistrationFailedSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  runnerId: RunnerIdSchema,
  /** Node's HTTP status. */
  status: z.union([z.literal(400), z.literal(403)]),
  /** Node's `{"error": ...}` message (Node's messages carry no secrets). */
  reason: ReasonSchema,
  at: TimestampSchema,
});
export type RegistrationFailed = z.infer<typeof RegistrationFailedSchema>;

/**
 * adapter → instance-manager: session changes, deduplicated by the adapter (deterministic job ids),
 * and the adapter's reports on registrations (withdrawal done, registration refused).
 * The queue name is persistent: renaming it strands queued jobs and needs a migration.
 */
export const SESSION_EVENTS_QUEUE = defineQueue('session-events', {
  'session-reserved': SessionReservedSchema,
  'session-released': SessionReleasedSchema,
  'runner-withdrawn': RunnerWithdrawnSchema,
  'registration-failed': RegistrationFailedSchema,
});
