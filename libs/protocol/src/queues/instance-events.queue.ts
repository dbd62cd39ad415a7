import { z } from 'zod';
import { defineQueue } from '../queue-definition';
import {
  AppMetadataSchema,
  AppModeSchema,
  AppNameSchema,
  GpuDescriptionSchema,
  InstanceIdSchema,
  InstanceKindSchema,
  InstanceUrlSchema,
  ReasonSchema,
  SessionCapacitySchema,
  TimestampSchema,
  UsdPriceSchema,
  VersionSchema,
} from '../common';

/**
 * An instance passed its readiness probe: the adapter registers it with Node as a dynamic runner.
 * Emitted exactly once per instance. A single-session instance always has capacity 1.
 */
export const InstanceReadySchema = z
  .strictObject({
    instanceId: InstanceIdSchema,
    app: AppNameSchema,
    /** The instance's private base URL, registered as Node's `runner_url`. */
    url: InstanceUrlSchema,
    capacity: SessionCapacitySchema,
    mode: AppModeSchema,
    kind: InstanceKindSchema,
    price: UsdPriceSchema.optional(),
    metadata: AppMetadataSchema,
    gpu: GpuDescriptionSchema.optional(),
    version: VersionSchema.optional(),
    readyAt: TimestampSchema,
  })
  .refine((ready) => ready.kind !== 'single-session' || ready.capacity === 1, {
    message: 'must be 1 for a single-session instance',
    path: ['capacity'],
  });
export type InstanceReady = z.infer<typeof InstanceReadySchema>;

/**
 * Stop sending new work to an instance (scale-down, app deleted, session over). The adapter caps the
 * runner's capacity at its active sessions and unregisters it once it has none, or at once when
 * `immediate` is true.
 */
export const InstanceWithdrawSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  app: AppNameSchema,
  reason: ReasonSchema,
  immediate: z.boolean(),
});
export type InstanceWithdraw = z.infer<typeof InstanceWithdrawSchema>;

/** How an instance ended; each instance records exactly one. */
export const InstanceOutcomeSchema = z.enum(['completed', 'failed', 'evicted']);
export type InstanceOutcome = z.infer<typeof InstanceOutcomeSchema>;

/** An instance no longer exists: the adapter drops its registration if one is left. */
export const InstanceGoneSchema = z.strictObject({
  instanceId: InstanceIdSchema,
  app: AppNameSchema,
  outcome: InstanceOutcomeSchema,
  reason: ReasonSchema.optional(),
});
export type InstanceGone = z.infer<typeof InstanceGoneSchema>;

/**
 * instance-manager → adapter: the lifecycle of instances.
 * The queue name is persistent: renaming it strands queued jobs and needs a migration.
 */
export const INSTANCE_EVENTS_QUEUE = defineQueue('instance-events', {
  'instance-ready': InstanceReadySchema,
  'instance-withdraw': InstanceWithdrawSchema,
  'instance-gone': InstanceGoneSchema,
});
