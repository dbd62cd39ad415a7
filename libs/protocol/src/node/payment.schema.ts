import { z } from 'zod';
import { secret } from '../secrets';
import { Base64Schema, EthAddressSchema, HttpUrlSchema, RouteIdSchema } from './primitives.schema';

/**
 * 402 body of a paid reservation or single-shot call (also the 200 body of top-ups and
 * `/refresh-payment`). `manifest_id` becomes the session id once paid. Node itself sends no
 * `payment_interval_ms`; the Python SDK reads it when present.
 */
export const PaymentChallengeSchema = z.object({
  /** Base64 `OrchestratorInfo` protobuf (or a simulator's own encoding); pass to the signer as is. */
  payment_params: Base64Schema,
  orchestrator: HttpUrlSchema,
  manifest_id: RouteIdSchema,
  /** `<svc>/apps/<rid>/session/<manifest_id>/payment`, where top-ups go. */
  payment_url: HttpUrlSchema,
  payment_interval_ms: z.number().int().positive().optional(),
});

export type PaymentChallenge = z.infer<typeof PaymentChallengeSchema>;

/** Body of `POST /refresh-payment`. */
export const RefreshPaymentRequestSchema = z.object({
  sender: EthAddressSchema,
  manifest_id: RouteIdSchema,
});

export type RefreshPaymentRequest = z.infer<typeof RefreshPaymentRequestSchema>;

/** 200 body of the signer's `POST /sign-orchestrator-info` (empty request body). */
export const SignOrchestratorInfoResponseSchema = z.object({
  address: EthAddressSchema,
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/u, { error: 'must be 0x-prefixed hex' }),
});

export type SignOrchestratorInfoResponse = z.infer<typeof SignOrchestratorInfoResponseSchema>;

/** The client-held signed payment state; pass it back unchanged. A bearer credential. */
export const SignerStateSchema = z.object({
  state: Base64Schema,
  sig: secret(Base64Schema),
});

export type SignerState = z.infer<typeof SignerStateSchema>;

/** Optional wei ceiling of a payment request: `seconds` for `live`, `fixed` for `fixed`. */
export const SignerMaxPriceSchema = z.object({
  price: z.number().positive(),
  currency: z.literal('wei'),
  unit: z.enum(['seconds', 'fixed']),
});

/** Body of the signer's `POST /generate-live-payment`. */
export const GenerateLivePaymentRequestSchema = z
  .object({
    /** The challenge's `payment_params`. */
    orchestrator: Base64Schema,
    type: z.enum(['live', 'fixed']),
    ManifestID: z.string().optional(),
    app: z.string().optional(),
    state: SignerStateSchema.optional(),
    maxPrice: SignerMaxPriceSchema.optional(),
  })
  .refine((body) => !body.maxPrice || body.maxPrice.unit === (body.type === 'live' ? 'seconds' : 'fixed'), {
    path: ['maxPrice', 'unit'],
    error: 'maxPrice.unit must be seconds for live and fixed for fixed',
  });

export type GenerateLivePaymentRequest = z.infer<typeof GenerateLivePaymentRequestSchema>;

/** 200 body of `/generate-live-payment`; send `payment` and `segCreds` as `Livepeer-Payment`/`-Segment`. */
export const GenerateLivePaymentResponseSchema = z.object({
  payment: secret(Base64Schema),
  segCreds: Base64Schema,
  state: SignerStateSchema,
});

export type GenerateLivePaymentResponse = z.infer<typeof GenerateLivePaymentResponseSchema>;

/** Signer statuses beyond the usual HTTP ones. */
export const SignerStatus = {
  /** Refresh payment parameters (`POST /refresh-payment`) or orchestrator authentication. */
  RefreshNeeded: 480,
  /** Price above a ceiling or above the initial session price. */
  PriceAboveCeiling: 481,
  /** No tickets needed; skip this payment cycle. */
  SkipCycle: 482,
} as const;
