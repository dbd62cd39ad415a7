import { z } from 'zod';

// The simulator's own encoding of Node's protobuf messages (payment_params, Livepeer-Payment,
// Livepeer-Segment): base64 of JSON. Clients pass these blobs along opaquely, as they do Node's.
const HexSchema = z.string().regex(/^0x[0-9a-f]*$/u);
const DecimalSchema = z.string().regex(/^(?:0|[1-9]\d*)$/u);

export const WirePriceSchema = z.object({ pricePerUnit: DecimalSchema, unitsPerPrice: DecimalSchema });
export type WirePrice = z.infer<typeof WirePriceSchema>;

export const WireTicketParamsSchema = z.object({
  recipient: HexSchema,
  faceValue: DecimalSchema,
  winProb: DecimalSchema,
  recipientRandHash: HexSchema,
  seed: HexSchema,
  expirationBlock: DecimalSchema,
  creationRound: DecimalSchema,
  creationRoundBlockHash: HexSchema,
});
export type WireTicketParams = z.infer<typeof WireTicketParamsSchema>;

export const WireAuthSchema = z.object({
  sessionId: z.string(),
  expiration: z.number().int(),
  token: HexSchema,
});
export type WireAuth = z.infer<typeof WireAuthSchema>;

/** `payment_params`: what Node's `OrchestratorInfo` carries for live runner payments. */
export const WireOrchestratorInfoSchema = z.object({
  format: z.literal('node-sim/1'),
  transcoder: z.string(),
  address: HexSchema,
  price: WirePriceSchema,
  ticketParams: WireTicketParamsSchema,
  auth: WireAuthSchema,
});
export type WireOrchestratorInfo = z.infer<typeof WireOrchestratorInfoSchema>;

/** `Livepeer-Payment`: a batch of signed tickets against one set of ticket params. */
export const WirePaymentSchema = z.object({
  ticketParams: WireTicketParamsSchema,
  sender: HexSchema,
  expectedPrice: WirePriceSchema,
  senderParams: z.array(z.object({ senderNonce: z.number().int().nonnegative(), sig: HexSchema })),
});
export type WirePayment = z.infer<typeof WirePaymentSchema>;

/** `Livepeer-Segment`: the manifest (session) id, signed by the payer, with the challenge's auth token. */
export const WireSegmentSchema = z.object({
  manifestId: z.string(),
  hash: HexSchema,
  signature: HexSchema,
  auth: WireAuthSchema,
});
export type WireSegment = z.infer<typeof WireSegmentSchema>;

/** The signer's client-held state (signed by the signer's key). */
export const SignerStateBodySchema = z.object({
  stateId: z.string(),
  pmSessionId: z.string(),
  lastUpdate: z.number(),
  orchestratorAddress: z.string(),
  app: z.string(),
  type: z.enum(['live', 'fixed']),
  manifestId: z.string(),
  senderNonce: z.number().int().nonnegative(),
  /** A rational `num/den`. */
  balance: z.string().regex(/^\d+\/\d+$/u),
  initialPrice: DecimalSchema,
  sequence: z.number().int().nonnegative(),
});
export type SignerStateBody = z.infer<typeof SignerStateBodySchema>;

export function encodeBlob(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64');
}

/** Decodes a base64-JSON blob; `undefined` when it is not valid base64, JSON or the schema. */
export function decodeBlob<T>(schema: z.ZodType<T>, text: string): T | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/u.test(text) || text.length === 0) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(text, 'base64').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
