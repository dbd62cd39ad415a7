import { z } from 'zod';
import { AppSpecSchema } from '../apps/app-spec.schema';
import {
  AppNameSchema,
  InstanceIdSchema,
  InstanceKindSchema,
  InstanceUrlSchema,
  ReasonSchema,
  SessionCapacitySchema,
  TimestampSchema,
} from '../common';
import { InstanceOutcomeSchema } from '../queues/instance-events.queue';

/**
 * An instance's lifecycle: `starting` (created, not yet passing its probe), `ready` (announced once with
 * `instance-ready`), `taken` (a single-session instance serving its one session), `withdrawing` (no new
 * work; waiting for the adapter's `runner-withdrawn` or a deadline), `gone` (destroyed, with one outcome).
 * Persistent: stored in instance records.
 */
export const InstanceStateSchema = z.enum(['starting', 'ready', 'taken', 'withdrawing', 'gone']);
export type InstanceState = z.infer<typeof InstanceStateSchema>;

/** One instance as `GET /v1/instances` shows it. */
export const InstanceResourceSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  app: AppNameSchema,
  kind: InstanceKindSchema,
  state: InstanceStateSchema,
  /** The private URL, once the instance is ready. */
  url: InstanceUrlSchema.optional(),
  /** Sessions one instance serves (1 for single-session). */
  capacity: SessionCapacitySchema,
  /** Sessions active on it now, as the adapter reported them. */
  sessions: z.int().min(0),
  /** Hash of the spec fields the instance was built from; differs from the app's after a spec change. */
  templateHash: z.string().min(1),
  createdAt: TimestampSchema,
  readyAt: TimestampSchema.optional(),
  takenAt: TimestampSchema.optional(),
  withdrawingSince: TimestampSchema.optional(),
  goneAt: TimestampSchema.optional(),
  outcome: InstanceOutcomeSchema.optional(),
  /** Why it was withdrawn or how it ended (fixed text; never app output). */
  reason: ReasonSchema.optional(),
});
export type InstanceResource = z.infer<typeof InstanceResourceSchema>;

/** The body of `GET /v1/instances`. */
export const InstanceListSchema = z.strictObject({ instances: z.array(InstanceResourceSchema) });
export type InstanceList = z.infer<typeof InstanceListSchema>;

/** Query of `GET /v1/instances`: filter by app and/or state. */
export const InstanceListQuerySchema = z.strictObject({
  app: AppNameSchema.optional(),
  state: InstanceStateSchema.optional(),
});

/** One line an instance wrote. */
export const InstanceLogLineSchema = z.strictObject({
  /** RFC 3339 timestamp as the runtime recorded it. */
  time: z.string().min(1),
  stream: z.enum(['stdout', 'stderr']),
  text: z.string(),
});
export type InstanceLogLine = z.infer<typeof InstanceLogLineSchema>;

/** Most log lines one request returns. */
export const MAX_LOG_TAIL = 5_000;

/** Query of `GET /v1/instances/{instanceId}/logs`. @defaultValue tail 200 */
export const InstanceLogsQuerySchema = z.strictObject({
  tail: z.coerce.number().int().min(1).max(MAX_LOG_TAIL).default(200),
});

/** The body of `GET /v1/instances/{instanceId}/logs`: live from the runtime, or kept after the instance went. */
export const InstanceLogsSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  source: z.enum(['live', 'archived']),
  lines: z.array(InstanceLogLineSchema),
});
export type InstanceLogs = z.infer<typeof InstanceLogsSchema>;

/** `active`, or `deleting` until every instance of the app is gone (then the app is removed). */
export const AppStatusSchema = z.enum(['active', 'deleting']);
export type AppStatus = z.infer<typeof AppStatusSchema>;

/** Instances of an app that are not gone, by state. */
export const InstanceCountsSchema = z.strictObject({
  starting: z.int().min(0),
  ready: z.int().min(0),
  taken: z.int().min(0),
  withdrawing: z.int().min(0),
});
export type InstanceCounts = z.infer<typeof InstanceCountsSchema>;

/** Node's refusal to register one of the app's instances, with Node's own status and reason. */
export const RegistrationRefusalSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  status: z.union([z.literal(400), z.literal(403)]),
  reason: ReasonSchema,
  at: TimestampSchema,
});
export type RegistrationRefusal = z.infer<typeof RegistrationRefusalSchema>;

/** The latest instance of an app that failed to start, while none has become ready since. */
export const StartFailureSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  /** Why, in fixed text (the host has not enough capacity left, the health check timed out, ...). */
  reason: ReasonSchema,
  at: TimestampSchema,
});
export type StartFailure = z.infer<typeof StartFailureSchema>;

/** One app as `GET /v1/apps/{app}` shows it: the stored spec (defaults applied) and its instances. */
export const AppResourceSchema = z.strictObject({
  name: AppNameSchema,
  spec: AppSpecSchema,
  templateHash: z.string().min(1),
  status: AppStatusSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  instances: InstanceCountsSchema,
  /** Node's latest refusals of the app's instances (newest first, at most 16); absent when none. */
  registrationRefusals: z.array(RegistrationRefusalSchema).optional(),

  /** Present while the app's instances fail to start: the latest failure and its reason. */
  lastStartFailure: StartFailureSchema.optional(),
});
export type AppResource = z.infer<typeof AppResourceSchema>;

/** The body of `GET /v1/apps`. */
export const AppListSchema = z.strictObject({ apps: z.array(AppResourceSchema) });
export type AppList = z.infer<typeof AppListSchema>;

/** Path parameters of the app routes. */
export const AppPathSchema = z.strictObject({ app: AppNameSchema });
/** Path parameters of the instance routes. */
export const InstancePathSchema = z.strictObject({ instanceId: InstanceIdSchema });
