import {
  AdapterDrainStatusSchema,
  HttpUrlSchema,
  InstanceReadySchema,
  ReasonSchema,
  RunnerIdSchema,
  SessionEventSourceSchema,
  SessionIdSchema,
  TimestampSchema,
  secret,
  type AdapterDrainStatus,
} from '@sandbox/protocol';
import { z } from 'zod';

/** What Node gave the runner on registration. `credential` is the runner's heartbeat secret. */
export const NodeLinkSchema = z.strictObject({
  credential: secret(z.string().min(1)),
  /** Node's runner-facing base URL, used for every call after registration. */
  orchestrator: HttpUrlSchema,
  intervalMs: z.number().positive(),
  ttlMs: z.number().positive(),
  o2rUrl: HttpUrlSchema.nullable(),
  /** Next O2R sequence number to read, saved after each session event. */
  o2rSeq: z.int(),
});
export type NodeLink = z.infer<typeof NodeLinkSchema>;

/** A session release not yet published to instance-manager (its publication failed, or is in progress). */
export const PendingReleaseSchema = z.strictObject({
  sessionId: SessionIdSchema,
  source: SessionEventSourceSchema,
  at: TimestampSchema,
});
export type PendingRelease = z.infer<typeof PendingReleaseSchema>;

/**
 * Lifecycle of a registration: `active` (registered, or parked by a drain), `withdrawing` (an
 * `instance-withdraw` is being carried out), `withdrawn` (done and acknowledged), `failed` (Node
 * refused it for good).
 */
export const RegistrationPhaseSchema = z.enum(['active', 'withdrawing', 'withdrawn', 'failed']);
export type RegistrationPhase = z.infer<typeof RegistrationPhaseSchema>;

/**
 * One instance's registration as kept in Redis, so that a restarted adapter resumes heartbeating
 * with the same credential and O2R position. Persistent: the layout is versioned.
 */
export const RegistrationRecordSchema = z.strictObject({
  version: z.literal(1),
  instance: InstanceReadySchema,
  runnerId: RunnerIdSchema,
  phase: RegistrationPhaseSchema,
  withdrawal: z
    .strictObject({ reason: ReasonSchema, immediate: z.boolean(), requestedAt: TimestampSchema })
    .nullable(),
  failure: z
    .strictObject({
      status: z.union([z.literal(400), z.literal(403)]),
      reason: ReasonSchema,
      at: TimestampSchema,
      reported: z.boolean(),
    })
    .nullable(),
  node: NodeLinkSchema.nullable(),
  /** Active sessions as Node reported them. */
  sessions: z.array(SessionIdSchema),
  pendingReleases: z.array(PendingReleaseSchema),
  /** Registered with Node at least once (later registrations are re-registrations). */
  registeredOnce: z.boolean(),
});
export type RegistrationRecord = z.infer<typeof RegistrationRecordSchema>;

/** The drain mode before any command. */
export const OPEN_DRAIN: AdapterDrainStatus = Object.freeze({ mode: 'open', drainId: null, since: null });

export { AdapterDrainStatusSchema };
