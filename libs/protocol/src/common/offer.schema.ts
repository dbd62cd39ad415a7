import { z } from 'zod';

/** Node's runner modes: a `persistent` session, or one `single-shot` call per session. */
export const AppModeSchema = z.enum(['persistent', 'single-shot']);
export type AppMode = z.infer<typeof AppModeSchema>;

/** `reusable` instances serve up to `capacity` sessions; `single-session` ones serve one and are replaced. */
export const InstanceKindSchema = z.enum(['reusable', 'single-session']);
export type InstanceKind = z.infer<typeof InstanceKindSchema>;

/** Concurrent sessions one runner serves; Node accepts 1 to 10000. */
export const SessionCapacitySchema = z.int().min(1).max(10_000);

/**
 * A positive USD amount as a decimal string (`"0.25"`, `"12"`), kept as text so no float rounding
 * happens before Node converts it to wei. At most 9 integer and 18 fractional digits.
 */
export const UsdAmountSchema = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,8})(?:\.[0-9]{1,18})?$/, {
    message: 'must be a decimal string such as "0.25" (no sign, exponent or leading zeros)',
    abort: true,
  })
  .refine((value) => /[1-9]/.test(value), {
    message: 'must be greater than zero (omit the price for a free app)',
  });

/** Node's price units for USD quotes: per `hour` of session, or a `fixed` amount per session or call. */
export const PriceUnitSchema = z.enum(['hour', 'fixed']);
export type PriceUnit = z.infer<typeof PriceUnitSchema>;

/** A USD price quote; an app without one is free. */
export const UsdPriceSchema = z.strictObject({ usd: UsdAmountSchema, unit: PriceUnitSchema });
export type UsdPrice = z.infer<typeof UsdPriceSchema>;

/** Largest metadata string, in UTF-8 bytes. */
export const MAX_METADATA_BYTES = 1024;

const encoder = new TextEncoder();

/** Length of a string once encoded as UTF-8. */
export function utf8ByteLength(value: string): number {
  return encoder.encode(value).byteLength;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Free-form app metadata Node echoes in discovery: well-formed Unicode, at most
 * {@link MAX_METADATA_BYTES} bytes as UTF-8 (characters outside ASCII count for 2 to 4 bytes).
 */
export const AppMetadataSchema = z
  .string()
  .refine((value) => !loneSurrogate.test(value), {
    message: 'must be well-formed Unicode (no lone surrogates)',
  })
  .refine((value) => utf8ByteLength(value) <= MAX_METADATA_BYTES, {
    message: `must be at most ${MAX_METADATA_BYTES} bytes as UTF-8`,
  });
export type AppMetadata = z.infer<typeof AppMetadataSchema>;

/** A GPU an app needs or an instance has, as Node advertises it in discovery; at least one field. */
export const GpuDescriptionSchema = z
  .strictObject({
    id: z.string().min(1).max(128).optional(),
    name: z.string().min(1).max(256).optional(),
    vramMb: z.int().min(0).max(16_777_216).optional(),
  })
  .refine((gpu) => gpu.id !== undefined || gpu.name !== undefined || gpu.vramMb !== undefined, {
    message: 'must describe the GPU with at least one of id, name, vramMb',
  });
export type GpuDescription = z.infer<typeof GpuDescriptionSchema>;
