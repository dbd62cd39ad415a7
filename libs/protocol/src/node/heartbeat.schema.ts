import { z } from 'zod';
import { secret } from '../secrets';
import { GoDurationSchema } from './go-duration';
import { HeartbeatRuleMessage } from './node-errors.schema';
import {
  GO_JSON_NUMBER_PATTERN,
  HttpUrlSchema,
  isHttpUrl,
  isRouteId,
  RouteIdSchema,
} from './primitives.schema';

/** A runner's GPU as an object; every field optional (`omitempty` in Node). */
export const RunnerGpuObjectSchema = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  vram_mb: z.number().int().nonnegative({ error: 'GPU VRAM must be nonnegative' }).optional(),
});

/**
 * `gpu` of a heartbeat: the object form, or a bare non-negative integer index that Node stores as
 * `{"id":"<n>"}`. A negative index or VRAM is a JSON error in Node (400 `invalid heartbeat JSON`).
 */
export const RunnerGpuSchema = z.union([
  z.number().int().nonnegative({ error: 'GPU index must be nonnegative' }),
  RunnerGpuObjectSchema,
]);

export type RunnerGpuObject = z.infer<typeof RunnerGpuObjectSchema>;
export type RunnerGpu = z.infer<typeof RunnerGpuSchema>;

/** A price as Node decodes it (Go `json.Number`): a JSON number, or a string holding one. */
export const JsonNumberSchema = z.union([
  z.number(),
  z.string().regex(GO_JSON_NUMBER_PATTERN, { error: 'must be a JSON number' }),
]);

/**
 * `price_info` of a heartbeat: a quote in USD per `hour` or `fixed` (per request or session).
 * `unit` and `currency` are compared after trimming and lower-casing; an empty or zero price is free.
 */
export const RunnerPriceQuoteSchema = z
  .object({
    price: JsonNumberSchema.optional(),
    currency: z.string().optional(),
    unit: z.string().optional(),
  })
  .superRefine((quote, ctx) => {
    const unit = (quote.unit ?? '').trim().toLowerCase();
    if (unit === '720p')
      ctx.addIssue({ code: 'custom', path: ['unit'], message: HeartbeatRuleMessage.Unit720p });
    else if (unit !== '' && unit !== 'hour' && unit !== 'fixed') {
      ctx.addIssue({ code: 'custom', path: ['unit'], message: HeartbeatRuleMessage.Unit });
    }
    const price = Number(quote.price ?? 0);
    if (price < 0)
      ctx.addIssue({ code: 'custom', path: ['price'], message: HeartbeatRuleMessage.NegativePrice });
    const currency = (quote.currency ?? '').trim().toLowerCase();
    if (price > 0 && currency !== '' && currency !== 'usd') {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: HeartbeatRuleMessage.Currency });
    }
  });

export type RunnerPriceQuote = z.infer<typeof RunnerPriceQuoteSchema>;

/** Runner modes; an empty or missing mode means `persistent`. */
export const RunnerModeSchema = z.enum(['persistent', 'single-shot']);

export type RunnerMode = z.infer<typeof RunnerModeSchema>;

/**
 * Body of `POST /runners/heartbeat` (≤ 1 MiB, one JSON object). Unknown fields are ignored by Node,
 * and so are they here. Send `runner_id` on every call after registration. `session_ids` is accepted
 * and ignored by Node, which answers with its own list.
 */
export const HeartbeatRequestSchema = z.object({
  runner_id: z
    .string()
    .refine((id) => id === '' || isRouteId(id), { error: HeartbeatRuleMessage.RunnerId })
    .optional(),
  runner_url: z.string().refine(isHttpUrl, { error: HeartbeatRuleMessage.RunnerUrl }),
  app: z.string().min(1, { error: HeartbeatRuleMessage.AppAndCapacity }),
  /** 0 or missing means 1. Lowering it below the active sessions releases nothing. */
  capacity: z
    .number()
    .int({ error: HeartbeatRuleMessage.AppAndCapacity })
    .min(0, { error: HeartbeatRuleMessage.AppAndCapacity })
    .max(10_000, { error: HeartbeatRuleMessage.AppAndCapacity })
    .optional(),
  mode: z.union([z.literal(''), RunnerModeSchema], { error: HeartbeatRuleMessage.Mode }).optional(),
  /** Any string is stored; only `ready` (or empty, meaning `ready`) makes the runner usable. */
  status: z.string().optional(),
  proxy: z.boolean().optional(),
  label: z.string().optional(),
  version: z.string().optional(),
  metadata: z.string().optional(),
  gpu: RunnerGpuSchema.optional(),
  price_info: RunnerPriceQuoteSchema.optional(),
  session_ids: z.array(z.string()).optional(),
});

export type HeartbeatRequest = z.infer<typeof HeartbeatRequestSchema>;

/**
 * A trickle channel descriptor. `url` is on the base the descriptor is meant for; `internal_url`
 * (runner-facing base) appears on session channels and on O2R channels of older Node versions.
 */
export const TrickleChannelSchema = z.object({
  name: z.string().min(1),
  channel_name: z.string().min(1),
  url: HttpUrlSchema,
  internal_url: HttpUrlSchema.optional(),
  mime_type: z.string().min(1),
});

export type TrickleChannel = z.infer<typeof TrickleChannelSchema>;

/** The O2R (orchestrator to runner) control channel returned on registration. */
export const O2RChannelSchema = TrickleChannelSchema.extend({
  name: z.literal('o2r'),
  mime_type: z.literal('application/json'),
});

export type O2RChannel = z.infer<typeof O2RChannelSchema>;

/**
 * 200 body of `POST /runners/heartbeat`. `heartbeat_secret` and `o2r` come together, only on the
 * initial (bootstrap) registration. `session_ids` is Node's authoritative list (`[]` when none),
 * including paid reservations still awaiting payment.
 */
export const HeartbeatResponseSchema = z
  .object({
    runner_id: RouteIdSchema,
    /** Runner-facing base URL; use it for every later runner call. */
    orchestrator: HttpUrlSchema,
    heartbeat_interval: GoDurationSchema,
    heartbeat_ttl: GoDurationSchema,
    heartbeat_secret: secret(z.string().min(1)).optional(),
    session_ids: z.array(RouteIdSchema),
    o2r: O2RChannelSchema.optional(),
  })
  .refine((body) => (body.heartbeat_secret === undefined) === (body.o2r === undefined), {
    path: ['o2r'],
    error: 'o2r and heartbeat_secret are sent together, only on registration',
  });

export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;
