import { ImageReferenceSchema, MintedInstanceIdSchema } from '@sandbox/protocol';
import { z } from 'zod';

/** How readiness is checked from the host: an HTTP GET answering `expectedStatus`, or a TCP connect. */
export const HealthCheckSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('http'),
    path: z.string().startsWith('/').max(1024),
    /** @defaultValue 200 */
    expectedStatus: z.int().min(100).max(599).default(200),
  }),
  z.strictObject({ type: z.literal('tcp') }),
]);
export type HealthCheck = z.infer<typeof HealthCheckSchema>;

const EnvNameSchema = z
  .string()
  .max(256)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an environment variable name');

/** Label keys are stored as podman labels under `sandbox.meta.`; values are plain text. */
const LabelKeySchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'label keys are lowercase letters, digits, dot, dash and underscore');

/**
 * One instance for the local driver to run. The instance-manager maps an app spec to this; only plain
 * values reach the sandbox, and the driver adds no credential of its own.
 */
export const InstanceSpecSchema = z.strictObject({
  /** Chosen by the caller (so it can be recorded before the start) or generated. */
  instanceId: MintedInstanceIdSchema.optional(),
  /** Registry style only: podman transports (`oci-archive:`, `dir:`) would run images from host files. */
  image: ImageReferenceSchema,
  /** The port the app listens on, on all of the instance's addresses. */
  port: z.int().min(1).max(65535),
  /** Replaces the image's CMD when given. */
  args: z
    .array(
      z
        .string()
        .max(4096)
        .regex(/^[^\0]*$/),
    )
    .max(256)
    .optional(),
  env: z
    .record(
      EnvNameSchema,
      z
        .string()
        .max(32_768)
        .regex(/^[^\0]*$/),
    )
    .default({}),
  resources: z.strictObject({
    cpus: z.number().positive().max(64),
    memoryMb: z.int().min(32).max(1_048_576),
  }),
  /** @defaultValue 'none' */
  egress: z.enum(['none', 'internet']).default('none'),
  /** Caller's bookkeeping (app name, generation), returned by `list()` after a restart. */
  labels: z.record(LabelKeySchema, z.string().max(256)).default({}),
});
export type InstanceSpec = z.infer<typeof InstanceSpecSchema>;
export type InstanceSpecInput = z.input<typeof InstanceSpecSchema>;
