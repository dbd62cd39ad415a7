import { z } from 'zod';
import { RunnerGpuObjectSchema, RunnerModeSchema } from './heartbeat.schema';
import { HttpUrlSchema } from './primitives.schema';

/**
 * A runner's price as Node advertises it. Free (and every runner of an off-chain Node):
 * `{"price":0,"currency":"","unit":""}`. Paid: wei per second (`unit: "seconds"`, from an hourly
 * quote) or per request/session (`fixed`), with the USD quote per unit in `price_usd`.
 * Wei amounts can exceed 2^53; parse with a reviver that keeps the source text where that matters.
 */
export const AdvertisedPriceSchema = z
  .object({
    price: z.number().nonnegative(),
    price_usd: z.number().nonnegative().optional(),
    currency: z.enum(['', 'wei']),
    unit: z.enum(['', 'seconds', 'fixed']),
  })
  .refine(
    (info) =>
      (info.price === 0 && info.currency === '' && info.unit === '') ||
      (info.price > 0 && info.currency === 'wei' && info.unit !== ''),
    {
      error: 'a free price has empty currency and unit; a paid price is in wei per seconds or fixed',
    },
  );

export type AdvertisedPrice = z.infer<typeof AdvertisedPriceSchema>;

/**
 * A runner in `GET /discovery`. There is no runner id field: it is the path segment after `/apps/`
 * (or the proxy id) in `url`. Only usable runners with free capacity are listed.
 */
export const DiscoveryRunnerSchema = z.object({
  /** Persistent: `<svc>/apps/<rid>/session`; single-shot: `<svc>/apps/<rid>/app` (or a proxy URL). */
  url: HttpUrlSchema,
  app: z.string().min(1),
  version: z.string().min(1).optional(),
  metadata: z.string().min(1).optional(),
  gpu: RunnerGpuObjectSchema.optional(),
  mode: RunnerModeSchema,
  capacity: z.number().int().min(1),
  capacity_used: z.number().int().nonnegative(),
  capacity_available: z.number().int().min(1),
  /**
   * Omitted for a free runner by newer Nodes (`omitzero` on `discoveryRunner.PriceInfo`,
   * orchestrator/registry.go@e6ed85a9); older ones send the zero price. Absent means free.
   */
  price_info: AdvertisedPriceSchema.optional(),
});

export type DiscoveryRunner = z.infer<typeof DiscoveryRunnerSchema>;

/** One orchestrator in a discovery answer; `address` is its public service URL. */
export const DiscoveryEntrySchema = z.object({
  address: HttpUrlSchema,
  runners: z.array(DiscoveryRunnerSchema),
});

export type DiscoveryEntry = z.infer<typeof DiscoveryEntrySchema>;

/** `GET /discovery`: always 200; Node answers with exactly one entry, itself. */
export const DiscoveryResponseSchema = z.array(DiscoveryEntrySchema);

export type DiscoveryResponse = z.infer<typeof DiscoveryResponseSchema>;

/**
 * The runner id a discovery `url` points at (`.../apps/<rid>/session` or `.../apps/<rid>/app`), or
 * `undefined` for a generated proxy URL.
 */
export function runnerIdFromDiscoveryUrl(url: string): string | undefined {
  const path = new URL(url).pathname;
  const match = /\/apps\/([^/]+)\/(?:session|app)$/u.exec(path);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}
