import { z } from 'zod';
import { ImageReferenceSchema } from '../apps/image-reference.schema';
import { AppNameSchema, DrainIdSchema, ReasonSchema, TimestampSchema } from '../common';
import { DrainWindowSchema, drainDurationSchema } from './drain-duration';

/**
 * Phases of a drain, in order; `done`, `aborted` and `failed` are terminal. Persistent: stored drain
 * records carry them.
 */
export const DrainPhaseSchema = z.enum([
  'withdrawing',
  'draining',
  'cancelling',
  'replacing',
  'awaiting-node',
  'resuming',
  'done',
  'aborted',
  'failed',
]);
export type DrainPhase = z.infer<typeof DrainPhaseSchema>;

export const TERMINAL_DRAIN_PHASES: readonly DrainPhase[] = Object.freeze(['done', 'aborted', 'failed']);

/** How a drain that reaches `resuming` ends. */
export const DrainOutcomeSchema = z.enum(['done', 'aborted', 'failed']);
export type DrainOutcome = z.infer<typeof DrainOutcomeSchema>;

/** What replaces the orchestrator: a new image, or a restart of the same one. */
export const DrainTargetSchema = z.union([
  z.strictObject({ image: ImageReferenceSchema }),
  z.strictObject({ restart: z.literal(true) }),
]);
export type DrainTarget = z.infer<typeof DrainTargetSchema>;

/** The longest quiet period: sessions that end stay ended for at most this long before `cancelling`. */
export const MAX_QUIET_PERIOD_MS = 3_600_000;

/** Body of `POST /v1/drains`. Without `window` or `quietPeriod`, the service's defaults apply. */
export const CreateDrainRequestSchema = z.strictObject({
  /** How long existing sessions may live: a Go (`6h`) or ISO 8601 (`PT6H`) duration, at most 12 h. */
  window: DrainWindowSchema.optional(),
  reason: ReasonSchema,
  target: DrainTargetSchema,
  /** How long Node must show no session of ours before the drain moves on (`0s` for at once). */
  quietPeriod: drainDurationSchema(0, MAX_QUIET_PERIOD_MS).optional(),
});
export type CreateDrainRequest = z.infer<typeof CreateDrainRequestSchema>;

/** Body of `POST /v1/drains/{id}/extend`: moves the deadline later, never past 12 h from the start. */
export const ExtendDrainRequestSchema = z.strictObject({ by: DrainWindowSchema });
export type ExtendDrainRequest = z.infer<typeof ExtendDrainRequestSchema>;

/** One phase change of a drain. */
export const DrainPhaseChangeSchema = z.strictObject({
  phase: DrainPhaseSchema,
  at: TimestampSchema,
  /** Why, when it is not the normal course (window expired, aborted, a failure). */
  note: ReasonSchema.optional(),
});
export type DrainPhaseChange = z.infer<typeof DrainPhaseChangeSchema>;

/** Sessions Node still shows on our runners, in total and per app. */
export const DrainSessionsSchema = z.strictObject({
  total: z.int().min(0),
  byApp: z.record(AppNameSchema, z.int().min(0)),
  observedAt: TimestampSchema,
});
export type DrainSessions = z.infer<typeof DrainSessionsSchema>;

/** Runners as the adapter's last drain command left them. */
export const DrainRunnersSchema = z.strictObject({
  runners: z.int().min(0),
  registered: z.int().min(0),
  capped: z.int().min(0),
  unregistered: z.int().min(0),
  at: TimestampSchema,
});
export type DrainRunners = z.infer<typeof DrainRunnersSchema>;

/** A drain as stored and as the API returns it. Persistent: records are kept in Redis. */
export const DrainRecordSchema = z.strictObject({
  id: DrainIdSchema,
  phase: DrainPhaseSchema,
  reason: ReasonSchema,
  target: DrainTargetSchema,
  windowMs: z.int().positive(),
  quietPeriodMs: z.int().min(0),
  createdAt: TimestampSchema,
  /** When remaining sessions are cancelled; moved by `extend`, never past `createdAt` + 12 h. */
  deadline: TimestampSchema,
  /** How the drain ends once it is `resuming`. */
  outcome: DrainOutcomeSchema.nullable(),
  abortRequestedAt: TimestampSchema.nullable(),
  sessions: DrainSessionsSchema.nullable(),
  /** Since when Node has shown no session of ours (for the quiet period). */
  quietSince: TimestampSchema.nullable(),
  runners: DrainRunnersSchema.nullable(),
  replacement: z
    .strictObject({ startedAt: TimestampSchema, completedAt: TimestampSchema.nullable() })
    .nullable(),
  history: z.array(DrainPhaseChangeSchema).min(1),
  lastError: z.strictObject({ message: ReasonSchema, at: TimestampSchema }).nullable(),
  finishedAt: TimestampSchema.nullable(),
});
export type DrainRecord = z.infer<typeof DrainRecordSchema>;

/** 200 body of `GET /v1/drains`: newest first. */
export const DrainListSchema = z.strictObject({ drains: z.array(DrainRecordSchema) });
export type DrainList = z.infer<typeof DrainListSchema>;
