import { z } from 'zod';
import { AppNameSchema, EvaluationIdSchema, RunnerIdSchema, SessionIdSchema } from '../common/ids.schema';
import { TimestampSchema } from '../common/fields.schema';
import {
  EvaluationsPerSessionSchema,
  EvaluationTargetSchema,
  EvaluationTriggerSchema,
} from '../queues/evaluations.queue';
import { AttributionSchema } from './evaluation-report.schema';

/**
 * Body of `POST /v1/evaluations`: evaluate the target now, `evaluationsPerSession` times in one paid
 * session per runner (each with its own report; the verifier's default when absent).
 */
export const CreateEvaluationRequestSchema = z.strictObject({
  target: EvaluationTargetSchema,
  evaluationsPerSession: EvaluationsPerSessionSchema.optional(),
});
export type CreateEvaluationRequest = z.infer<typeof CreateEvaluationRequestSchema>;

/**
 * `Idempotency-Key` of `POST /v1/evaluations`, chosen by the client (a UUID fits): a retry with the
 * same key and body returns the first order's run and never pays again.
 */
export const IdempotencyKeySchema = z.string().regex(/^[A-Za-z0-9._~:-]{1,128}$/u, {
  message: 'must be 1-128 of A-Z a-z 0-9 . _ ~ : -',
});

/** 202 body of `POST /v1/evaluations`. */
export const CreateEvaluationResponseSchema = z.strictObject({
  evaluationId: EvaluationIdSchema,
  requestedAt: TimestampSchema,
});
export type CreateEvaluationResponse = z.infer<typeof CreateEvaluationResponseSchema>;

/** One attempt on a target, whatever its outcome (platform failures included). */
export const EvaluationAttemptSchema = z.strictObject({
  evaluationId: EvaluationIdSchema,
  trigger: EvaluationTriggerSchema,
  finishedAt: TimestampSchema,
  status: z.enum(['pass', 'fail']),
  attribution: AttributionSchema,
  reasonCode: z.string().min(1).max(64),
  sessionId: SessionIdSchema.nullable(),
  /** The signed report of the attempt; absent when none could be written (a verifier crash). */
  reportId: EvaluationIdSchema.nullable(),
});
export type EvaluationAttempt = z.infer<typeof EvaluationAttemptSchema>;

/**
 * The result a target is judged by now. `pass`: a passing report that has not expired; `fail`: the
 * latest target failure; `unknown`: the latest attempt could not be attributed; `expired`: the last
 * result's `validUntil` is past. A platform failure never changes it (and never extends `validUntil`):
 * `carriedForward` says a later attempt failed on the platform while this result stayed current.
 */
export const CurrentResultSchema = z.strictObject({
  state: z.enum(['pass', 'fail', 'unknown', 'expired']),
  reportId: EvaluationIdSchema,
  attribution: AttributionSchema,
  reasonCode: z.string().min(1).max(64),
  finishedAt: TimestampSchema,
  validUntil: TimestampSchema,
  carriedForward: z.boolean(),
});
export type CurrentResult = z.infer<typeof CurrentResultSchema>;

/** `GET /v1/targets/{runnerId}`. */
export const TargetStatusSchema = z.strictObject({
  runnerId: RunnerIdSchema,
  app: AppNameSchema,
  current: CurrentResultSchema.nullable(),
  /** Newest first, bounded. */
  attempts: z.array(EvaluationAttemptSchema),
});
export type TargetStatus = z.infer<typeof TargetStatusSchema>;

/** `GET /v1/targets`: every target evaluated so far, without attempt history. */
export const TargetListResponseSchema = z.strictObject({
  targets: z.array(TargetStatusSchema.omit({ attempts: true })),
});
export type TargetListResponse = z.infer<typeof TargetListResponseSchema>;

/**
 * `GET /v1/apps/{app}/attempts`: app-wide runs that reached no runner (Node unreachable or failing,
 * no runner offered), newest first, bounded. Each is also recorded on the app's known runners.
 */
export const AppAttemptsResponseSchema = z.strictObject({
  app: AppNameSchema,
  attempts: z.array(EvaluationAttemptSchema),
});
export type AppAttemptsResponse = z.infer<typeof AppAttemptsResponseSchema>;
