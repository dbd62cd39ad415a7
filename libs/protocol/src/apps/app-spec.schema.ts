import { z } from 'zod';
import {
  AppMetadataSchema,
  AppModeSchema,
  GpuDescriptionSchema,
  SessionCapacitySchema,
  UsdPriceSchema,
  VersionSchema,
} from '../common';
import { ImageReferenceSchema } from './image-reference.schema';
import { ResourcesSchema } from './resources.schema';

/** Most instances of one app: Node registers at most 256 runners in all. */
export const MAX_INSTANCES_PER_APP = 256;
/** Most arguments and environment variables of a spec. */
export const MAX_ARGS = 128;
export const MAX_ENV_VARS = 128;

const noNul = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\0]*$/, { message: 'must not contain NUL characters' });

/** A POSIX-style environment variable name. */
export const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, {
  message: "must be 1-128 characters of A-Z, a-z, 0-9 and '_', not starting with a digit",
});

/** The app's readiness check, probed from the host (or kubelet) on the app port. */
export const HealthCheckSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('http'),
    /** Path and optional query, such as `/healthz`. */
    path: z
      .string()
      .max(1024)
      .regex(/^\/[\x21-\x7e]*$/, { message: "must start with '/' and contain only visible ASCII" }),
    /** @defaultValue 200 */
    expectedStatus: z.int().min(100).max(599).default(200),
  }),
  z.strictObject({ type: z.literal('tcp') }),
]);
export type HealthCheck = z.infer<typeof HealthCheckSchema>;

const replicas = z.int().min(0).max(MAX_INSTANCES_PER_APP);

/** Instances serving up to `capacity` sessions each, between `minReplicas` and `maxReplicas` of them. */
export const ReusableInstancesSchema = z
  .strictObject({
    kind: z.literal('reusable'),
    capacity: SessionCapacitySchema,
    minReplicas: replicas,
    maxReplicas: replicas.min(1),
  })
  .refine((spec) => spec.minReplicas <= spec.maxReplicas, {
    message: 'must be at least minReplicas',
    path: ['maxReplicas'],
  });

/** Instances serving one session each: `warmPool` idle ones kept ready, at most `max` in all. */
export const SingleSessionInstancesSchema = z
  .strictObject({ kind: z.literal('single-session'), warmPool: replicas, max: replicas.min(1) })
  .refine((spec) => spec.warmPool <= spec.max, { message: 'must be at least warmPool', path: ['max'] });

export const InstancesSchema = z.discriminatedUnion('kind', [
  ReusableInstancesSchema,
  SingleSessionInstancesSchema,
]);
export type Instances = z.infer<typeof InstancesSchema>;

/** `none`: no connection out of the sandbox. `internet`: public addresses only, never the cluster or host. */
export const EgressSchema = z.enum(['none', 'internet']);
export type Egress = z.infer<typeof EgressSchema>;

/**
 * The body of `PUT /v1/apps/{app}`: everything instance-manager needs to run an ordinary HTTP image as
 * sandboxed instances and everything the adapter advertises to Node. Env values are plain text; secrets
 * will come by reference, never inline.
 */
export const AppSpecSchema = z.strictObject({
  image: ImageReferenceSchema,
  /** The port the app listens on inside its sandbox. */
  port: z.int().min(1).max(65_535),
  /** @defaultValue [] */
  args: z.array(noNul(4096)).max(MAX_ARGS).default([]),
  /** @defaultValue {} */
  env: z
    .record(EnvNameSchema, noNul(32_768))
    .refine((env) => Object.keys(env).length <= MAX_ENV_VARS, {
      message: `must have at most ${MAX_ENV_VARS} entries`,
    })
    .default({}),
  healthCheck: HealthCheckSchema,
  resources: ResourcesSchema,
  mode: AppModeSchema,
  instances: InstancesSchema,
  price: UsdPriceSchema.optional(),
  /** @defaultValue '' */
  metadata: AppMetadataSchema.default(''),
  gpu: GpuDescriptionSchema.optional(),
  version: VersionSchema.optional(),
  /** @defaultValue 'none' */
  egress: EgressSchema.default('none'),
});
/** A parsed spec, defaults applied. */
export type AppSpec = z.infer<typeof AppSpecSchema>;
/** A spec as clients may send it (defaulted fields optional). */
export type AppSpecInput = z.input<typeof AppSpecSchema>;
