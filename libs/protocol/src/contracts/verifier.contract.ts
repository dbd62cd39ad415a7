import { z } from 'zod';
import { AppNameSchema, EvaluationIdSchema, RunnerIdSchema } from '../common/ids.schema';
import { ErrorCode } from '../errors/error-codes';
import { SignedEvaluationReportSchema } from '../evaluations/evaluation-report.schema';
import {
  AppAttemptsResponseSchema,
  CreateEvaluationRequestSchema,
  CreateEvaluationResponseSchema,
  TargetListResponseSchema,
  TargetStatusSchema,
} from '../evaluations/verifier-api.schema';
import { defineApi, defineRoute } from './route-contract';

const service = 'verifier';
const { IdempotencyKeyReused, NotFound, Unavailable } = ErrorCode;

/** The verifier API: on-demand evaluations, the current result per runner, signed reports. */
export const verifierRoutes = {
  createEvaluation: defineRoute({
    service,
    operationId: 'createEvaluation',
    summary:
      'Queues an on-demand evaluation; the seed is drawn when it runs. With an Idempotency-Key header, a retry answers the first run',
    method: 'POST',
    path: '/v1/evaluations',
    body: CreateEvaluationRequestSchema,
    success: [202],
    response: CreateEvaluationResponseSchema,
    errors: [IdempotencyKeyReused, Unavailable],
    role: 'admin',
  }),
  listTargets: defineRoute({
    service,
    operationId: 'listTargets',
    summary: 'Every evaluated runner with its current result',
    method: 'GET',
    path: '/v1/targets',
    success: [200],
    response: TargetListResponseSchema,
    errors: [Unavailable],
    role: 'read',
  }),
  getTarget: defineRoute({
    service,
    operationId: 'getTarget',
    summary: "One runner's current result and its attempts",
    method: 'GET',
    path: '/v1/targets/{runnerId}',
    params: z.strictObject({ runnerId: RunnerIdSchema }),
    success: [200],
    response: TargetStatusSchema,
    errors: [NotFound, Unavailable],
    role: 'read',
  }),
  getAppAttempts: defineRoute({
    service,
    operationId: 'getAppAttempts',
    summary: "An app's attempts that reached no runner (Node unreachable, no runner offered)",
    method: 'GET',
    path: '/v1/apps/{app}/attempts',
    params: z.strictObject({ app: AppNameSchema }),
    success: [200],
    response: AppAttemptsResponseSchema,
    errors: [Unavailable],
    role: 'read',
  }),
  getReport: defineRoute({
    service,
    operationId: 'getReport',
    summary: 'A signed evaluation report',
    method: 'GET',
    path: '/v1/reports/{reportId}',
    params: z.strictObject({ reportId: EvaluationIdSchema }),
    success: [200],
    response: SignedEvaluationReportSchema,
    errors: [NotFound, Unavailable],
    role: 'read',
  }),
} as const;

export const verifierApi = defineApi({
  service,
  title: 'verifier',
  description: 'Evaluations of runners through Node, as a paying client; signed reports.',
  schemas: {
    CreateEvaluationRequest: CreateEvaluationRequestSchema,
    CreateEvaluationResponse: CreateEvaluationResponseSchema,
    TargetList: TargetListResponseSchema,
    Target: TargetStatusSchema,
    AppAttempts: AppAttemptsResponseSchema,
    SignedReport: SignedEvaluationReportSchema,
  },
  routes: verifierRoutes,
});
