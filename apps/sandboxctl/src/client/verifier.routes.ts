import {
  CreateEvaluationRequestSchema,
  CreateEvaluationResponseSchema,
  EvaluationIdSchema,
  RunnerIdSchema,
  SignedEvaluationReportSchema,
  TargetListResponseSchema,
  TargetStatusSchema,
} from '@sandbox/protocol';
import { z } from 'zod';
import type { ServiceDefinition } from '../config';
import { defineRoute } from './route';

const service = 'verifier';

/** The service and its port in the embedded stack. */
export const verifierService: ServiceDefinition = {
  name: service,
  defaultUrl: 'http://127.0.0.1:7105',
};

/**
 * The verifier API, from the protocol's evaluations schemas. The verifier publishes no OpenAPI
 * document, so the integration tests check each route against the running service instead.
 */
export const verifierRoutes = {
  createEvaluation: defineRoute({
    service,
    operationId: 'createEvaluation',
    method: 'POST',
    path: '/v1/evaluations',
    body: CreateEvaluationRequestSchema,
    success: [202],
    response: CreateEvaluationResponseSchema,
  }),
  listTargets: defineRoute({
    service,
    operationId: 'listTargets',
    method: 'GET',
    path: '/v1/targets',
    success: [200],
    response: TargetListResponseSchema,
  }),
  getTarget: defineRoute({
    service,
    operationId: 'getTarget',
    method: 'GET',
    path: '/v1/targets/{runnerId}',
    params: z.strictObject({ runnerId: RunnerIdSchema }),
    success: [200],
    response: TargetStatusSchema,
  }),
  getReport: defineRoute({
    service,
    operationId: 'getReport',
    method: 'GET',
    path: '/v1/reports/{reportId}',
    params: z.strictObject({ reportId: EvaluationIdSchema }),
    success: [200],
    response: SignedEvaluationReportSchema,
  }),
} as const;
