import { z } from 'zod';
import { secret } from '../secrets';

/** A run's 32-byte seed, hex. Secret: it appears only in requests to the responder, never at rest. */
export const EvaluationSeedSchema = secret(
  z.string().regex(/^[0-9a-f]{64}$/u, { message: 'must be 64 lowercase hex characters' }),
);

/** Largest download or upload one request may carry (bounds the responder's work). */
export const MAX_TRANSFER_BYTES = 16 * 1024 ** 3;

/** Body of the responder's `POST /v1/download`: stream `bytes` bytes of the seed's keystream. */
export const DownloadRequestSchema = z.strictObject({
  seed: EvaluationSeedSchema,
  bytes: z.number().int().min(1).max(MAX_TRANSFER_BYTES),
});
export type DownloadRequest = z.infer<typeof DownloadRequestSchema>;

/** 200 body of `POST /v1/upload`: what the responder received. */
export const UploadResultSchema = z.strictObject({
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/u),
});
export type UploadResult = z.infer<typeof UploadResultSchema>;

/** Body of `POST /v1/hash`: find `shares` counters below the target of `difficultyBits`. */
export const HashChallengeRequestSchema = z.strictObject({
  seed: EvaluationSeedSchema,
  difficultyBits: z.number().int().min(0).max(32),
  shares: z.number().int().min(1).max(10_000),
});
export type HashChallengeRequest = z.infer<typeof HashChallengeRequestSchema>;

/** 200 body of `POST /v1/hash`: the counters and the session id Node gave the request. */
export const HashChallengeResponseSchema = z.strictObject({
  sessionId: z.string().min(1).max(128),
  counters: z.array(z.number().int().nonnegative()).max(10_000),
});
export type HashChallengeResponse = z.infer<typeof HashChallengeResponseSchema>;
