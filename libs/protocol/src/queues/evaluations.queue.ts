import { z } from 'zod';
import { defineQueue } from '../queue-definition';
import { AppNameSchema, EvaluationIdSchema, RunnerIdSchema, TimestampSchema } from '../common';

/** What to measure: any runner of `app` that Node offers, or exactly `runnerId` when given. */
export const EvaluationTargetSchema = z.strictObject({
  app: AppNameSchema,
  runnerId: RunnerIdSchema.optional(),
});
export type EvaluationTarget = z.infer<typeof EvaluationTargetSchema>;

/** Why a run started: the verifier's schedule or an operator's request. */
export const EvaluationTriggerSchema = z.enum(['scheduled', 'on-demand']);
export type EvaluationTrigger = z.infer<typeof EvaluationTriggerSchema>;

/** Most evaluations one paid session may hold (bounds a session's length and cost). */
export const MAX_EVALUATIONS_PER_SESSION = 10;

/**
 * How many evaluations of the plan run one after another inside one paid Node session, each with its
 * own seed and report. Absent: the verifier's configured default.
 */
export const EvaluationsPerSessionSchema = z.number().int().min(1).max(MAX_EVALUATIONS_PER_SESSION);

/** Run one evaluation. Seeds are drawn by the worker at run time and never travel in the job. */
export const RunEvaluationSchema = z.strictObject({
  evaluationId: EvaluationIdSchema,
  target: EvaluationTargetSchema,
  requestedAt: TimestampSchema,
  trigger: EvaluationTriggerSchema,
  evaluationsPerSession: EvaluationsPerSessionSchema.optional(),
});
export type RunEvaluation = z.infer<typeof RunEvaluationSchema>;

/**
 * verifier → itself: scheduled and on-demand runs.
 * The queue name is persistent: renaming it strands queued jobs and needs a migration.
 */
export const EVALUATIONS_QUEUE = defineQueue('evaluations', {
  'run-evaluation': RunEvaluationSchema,
});
