import { z } from 'zod';
import {
  AppNameSchema,
  DrainIdSchema,
  InstanceIdSchema,
  ReasonSchema,
  RunnerIdSchema,
  SessionCapacitySchema,
  SessionIdSchema,
  TimestampSchema,
} from '../common';

/**
 * Where one instance's Node registration stands, as the adapter reports it:
 * - `registering`: no credential yet (bootstrapping, or re-bootstrapping after Node lost it);
 * - `registered`: heartbeating with the spec's capacity;
 * - `capped`: heartbeating with capacity capped at the active sessions (withdrawal or drain);
 * - `unregistering`: being unregistered (withdrawal, drain, instance gone);
 * - `parked`: unregistered by a drain, waiting for `resume`;
 * - `withdrawn`: unregistered for good, acknowledged to instance-manager;
 * - `failed`: Node refused the registration (400/403), reported to instance-manager.
 */
export const RunnerStateSchema = z.enum([
  'registering',
  'registered',
  'capped',
  'unregistering',
  'parked',
  'withdrawn',
  'failed',
]);
export type RunnerState = z.infer<typeof RunnerStateSchema>;

/** The last failed call to Node: its HTTP status, or how it failed without one. */
export const RunnerErrorSchema = z.strictObject({
  kind: z.enum(['http', 'network', 'timeout', 'invalid-response']),
  status: z.int().min(100).max(599).optional(),
  /** Node's `{"error": ...}` message or the transport problem; never a credential. */
  message: ReasonSchema,
  at: TimestampSchema,
  /** Failed calls in a row so far. */
  consecutive: z.int().min(1),
});
export type RunnerError = z.infer<typeof RunnerErrorSchema>;

/** One instance's registration in `GET /v1/runners`. No credentials, ever. */
export const RunnerViewSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  app: AppNameSchema,
  runnerId: RunnerIdSchema,
  state: RunnerStateSchema,
  /** The spec's capacity. */
  capacity: SessionCapacitySchema,
  /** The capacity the last successful heartbeat advertised. */
  advertisedCapacity: SessionCapacitySchema.nullable(),
  lastBeat: z.strictObject({ at: TimestampSchema, latencyMs: z.number().nonnegative() }).nullable(),
  /** Heartbeat interval and TTL Node returned, in milliseconds. */
  heartbeat: z.strictObject({ intervalMs: z.number().positive(), ttlMs: z.number().positive() }).nullable(),
  /** Sessions as Node last reported them (O2R events and heartbeat `session_ids`). */
  sessions: z.array(SessionIdSchema),
  o2r: z.strictObject({ connected: z.boolean(), lastMessageAt: TimestampSchema.nullable() }),
  lastError: RunnerErrorSchema.nullable(),
  /** Node's refusal, when `state` is `failed`. */
  failure: z
    .strictObject({
      status: z.union([z.literal(400), z.literal(403)]),
      reason: ReasonSchema,
      at: TimestampSchema,
    })
    .nullable(),
  withdrawal: z
    .strictObject({ reason: ReasonSchema, immediate: z.boolean(), requestedAt: TimestampSchema })
    .nullable(),
});
export type RunnerView = z.infer<typeof RunnerViewSchema>;

/**
 * The adapter's drain mode, set by `adapter-commands`: `open` (normal), `withdrawn` (capacities
 * capped, idle runners unregistered), `cancelled` (every runner unregistered).
 */
export const AdapterDrainModeSchema = z.enum(['open', 'withdrawn', 'cancelled']);
export type AdapterDrainMode = z.infer<typeof AdapterDrainModeSchema>;

/** The drain mode with the command that set it. */
export const AdapterDrainStatusSchema = z.strictObject({
  mode: AdapterDrainModeSchema,
  drainId: DrainIdSchema.nullable(),
  since: TimestampSchema.nullable(),
});
export type AdapterDrainStatus = z.infer<typeof AdapterDrainStatusSchema>;

/** Query of `GET /v1/runners`. */
export const RunnersQuerySchema = z.strictObject({
  state: RunnerStateSchema.optional(),
  app: AppNameSchema.optional(),
});
export type RunnersQuery = z.infer<typeof RunnersQuerySchema>;

/** 200 body of `GET /v1/runners`. */
export const RunnersResponseSchema = z.strictObject({
  runners: z.array(RunnerViewSchema),
  drain: AdapterDrainStatusSchema,
});
export type RunnersResponse = z.infer<typeof RunnersResponseSchema>;

/**
 * What an `adapter-commands` job returns once the command has taken effect at Node (the BullMQ
 * job's return value): how many registrations ended in each situation.
 */
export const AdapterCommandResultSchema = z.strictObject({
  command: z.enum(['withdraw-all', 'cancel-sessions', 'resume']),
  drainId: DrainIdSchema,
  /** Registrations the command applied to (withdrawn and failed ones excluded). */
  runners: z.int().min(0),
  /** Heartbeating with the spec's capacity. */
  registered: z.int().min(0),
  /** Heartbeating with capacity capped at their sessions. */
  capped: z.int().min(0),
  /** Not registered with Node. */
  unregistered: z.int().min(0),
  /** Sessions still active at Node on capped runners. */
  activeSessions: z.int().min(0),
  completedAt: TimestampSchema,
});
export type AdapterCommandResult = z.infer<typeof AdapterCommandResultSchema>;
