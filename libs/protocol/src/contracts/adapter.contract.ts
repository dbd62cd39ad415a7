import { ErrorCode } from '../errors/error-codes';
import { RunnersQuerySchema, RunnersResponseSchema, RunnerViewSchema } from '../adapter/runners-api.schema';
import { InstancePathSchema } from '../instance-manager/instance-manager-api.schema';
import { defineApi, defineRoute } from './route-contract';

const service = 'adapter';

/** The adapter's registrations API (reads only). */
export const adapterRoutes = {
  listRunners: defineRoute({
    service,
    operationId: 'listRunners',
    summary: "Every instance's registration with Node (filter by state and app), and the drain mode",
    method: 'GET',
    path: '/v1/runners',
    query: RunnersQuerySchema,
    success: [200],
    response: RunnersResponseSchema,
    errors: [],
    role: 'read',
  }),
  getRunner: defineRoute({
    service,
    operationId: 'getRunner',
    summary: "One instance's registration",
    method: 'GET',
    path: '/v1/runners/{instanceId}',
    params: InstancePathSchema,
    success: [200],
    response: RunnerViewSchema,
    errors: [ErrorCode.NotFound],
    role: 'read',
  }),
} as const;

export const adapterApi = defineApi({
  service,
  title: 'adapter',
  description: 'One Node registration per ready instance: runner id, state, sessions.',
  schemas: { RunnerList: RunnersResponseSchema, Runner: RunnerViewSchema },
  routes: adapterRoutes,
});
