import {
  CreateDrainRequestSchema,
  DrainListSchema,
  DrainRecordSchema,
  ExtendDrainRequestSchema,
} from '@sandbox/protocol';
import { z } from 'zod';
import type { ServiceDefinition } from '../config';
import { defineRoute } from './route';

const service = 'drain-controller';

/** The service and its port in the embedded stack. */
export const drainControllerService: ServiceDefinition = {
  name: service,
  defaultUrl: 'http://127.0.0.1:7103',
};

const DrainPathSchema = z.strictObject({ id: DrainRecordSchema.shape.id });

/** The drain-controller API (checked against its `/v1/openapi.json` by the integration tests). */
export const drainControllerRoutes = {
  createDrain: defineRoute({
    service,
    operationId: 'createDrain',
    method: 'POST',
    path: '/v1/drains',
    body: CreateDrainRequestSchema,
    success: [201],
    response: DrainRecordSchema,
  }),
  listDrains: defineRoute({
    service,
    operationId: 'listDrains',
    method: 'GET',
    path: '/v1/drains',
    success: [200],
    response: DrainListSchema,
  }),
  getDrain: defineRoute({
    service,
    operationId: 'getDrain',
    method: 'GET',
    path: '/v1/drains/{id}',
    params: DrainPathSchema,
    success: [200],
    response: DrainRecordSchema,
  }),
  abortDrain: defineRoute({
    service,
    operationId: 'abortDrain',
    method: 'POST',
    path: '/v1/drains/{id}/abort',
    params: DrainPathSchema,
    success: [200],
    response: DrainRecordSchema,
  }),
  extendDrain: defineRoute({
    service,
    operationId: 'extendDrain',
    method: 'POST',
    path: '/v1/drains/{id}/extend',
    params: DrainPathSchema,
    body: ExtendDrainRequestSchema,
    success: [200],
    response: DrainRecordSchema,
  }),
} as const;
