import {
  InstancePathSchema,
  RunnersQuerySchema,
  RunnersResponseSchema,
  RunnerViewSchema,
} from '@sandbox/protocol';
import type { ServiceDefinition } from '../config';
import { defineRoute } from './route';

const service = 'adapter';

/** The service and its port in the embedded stack. */
export const adapterService: ServiceDefinition = { name: service, defaultUrl: 'http://127.0.0.1:7102' };

/** The adapter's registrations API. */
export const adapterRoutes = {
  listRunners: defineRoute({
    service,
    operationId: 'listRunners',
    method: 'GET',
    path: '/v1/runners',
    query: RunnersQuerySchema,
    success: [200],
    response: RunnersResponseSchema,
  }),
  getRunner: defineRoute({
    service,
    operationId: 'getRunner',
    method: 'GET',
    path: '/v1/runners/{instanceId}',
    params: InstancePathSchema,
    success: [200],
    response: RunnerViewSchema,
  }),
} as const;
