import { z } from 'zod';
import { DrainIdSchema } from '../common/ids.schema';
import { ErrorCode } from '../errors/error-codes';
import {
  CreateDrainRequestSchema,
  DrainListSchema,
  DrainRecordSchema,
  ExtendDrainRequestSchema,
} from '../drain/drain-api.schema';
import { defineApi, defineRoute } from './route-contract';

const service = 'drain-controller';
const { NotFound, Unavailable, DrainInProgress, DrainFinished, DrainPhaseConflict, DrainWindowExceeded } =
  ErrorCode;

/** `{id}` of the drain routes. */
export const DrainPathSchema = z.strictObject({ id: DrainIdSchema });

/** The drain-controller API: planned orchestrator upgrades. */
export const drainControllerRoutes = {
  createDrain: defineRoute({
    service,
    operationId: 'createDrain',
    summary: 'Starts a drain (withdrawing); one at a time',
    method: 'POST',
    path: '/v1/drains',
    body: CreateDrainRequestSchema,
    success: [201],
    response: DrainRecordSchema,
    errors: [DrainInProgress, Unavailable],
    role: 'admin',
  }),
  listDrains: defineRoute({
    service,
    operationId: 'listDrains',
    summary: 'The latest drains, newest first',
    method: 'GET',
    path: '/v1/drains',
    success: [200],
    response: DrainListSchema,
    errors: [Unavailable],
    role: 'read',
  }),
  getDrain: defineRoute({
    service,
    operationId: 'getDrain',
    summary: 'The drain',
    method: 'GET',
    path: '/v1/drains/{id}',
    params: DrainPathSchema,
    success: [200],
    response: DrainRecordSchema,
    errors: [NotFound, Unavailable],
    role: 'read',
  }),
  abortDrain: defineRoute({
    service,
    operationId: 'abortDrain',
    summary:
      'Before the orchestrator is replaced: resumes at once. During the replacement: finishes it, then resumes.',
    method: 'POST',
    path: '/v1/drains/{id}/abort',
    params: DrainPathSchema,
    success: [200],
    response: DrainRecordSchema,
    errors: [NotFound, DrainFinished, Unavailable],
    role: 'admin',
  }),
  extendDrain: defineRoute({
    service,
    operationId: 'extendDrain',
    summary: 'Moves the deadline later while sessions are still allowed, never past 12 h from the start.',
    method: 'POST',
    path: '/v1/drains/{id}/extend',
    params: DrainPathSchema,
    body: ExtendDrainRequestSchema,
    success: [200],
    response: DrainRecordSchema,
    errors: [NotFound, DrainFinished, DrainPhaseConflict, DrainWindowExceeded, Unavailable],
    role: 'admin',
  }),
} as const;

export const drainControllerApi = defineApi({
  service,
  title: 'drain-controller',
  description: 'Planned orchestrator upgrades that keep every session alive for up to 12 hours.',
  // Request bodies in their input form (durations as strings), responses as sent.
  schemas: {
    CreateDrainRequest: CreateDrainRequestSchema,
    ExtendDrainRequest: ExtendDrainRequestSchema,
    Drain: DrainRecordSchema,
    DrainList: DrainListSchema,
  },
  routes: drainControllerRoutes,
});
