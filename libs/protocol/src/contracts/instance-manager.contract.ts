import { ErrorCode } from '../errors/error-codes';
import { AppSpecSchema } from '../apps/app-spec.schema';
import {
  AppListSchema,
  AppPathSchema,
  AppResourceSchema,
  InstanceListQuerySchema,
  InstanceListSchema,
  InstanceLogsQuerySchema,
  InstanceLogsSchema,
  InstancePathSchema,
  InstanceResourceSchema,
} from '../instance-manager/instance-manager-api.schema';
import { defineApi, defineRoute } from './route-contract';

const service = 'instance-manager';
const { NotFound, Unavailable } = ErrorCode;

/** The instance-manager API: app specs and their sandboxed instances. */
export const instanceManagerRoutes = {
  listApps: defineRoute({
    service,
    operationId: 'listApps',
    summary: 'Every app',
    method: 'GET',
    path: '/v1/apps',
    success: [200],
    response: AppListSchema,
    errors: [Unavailable],
    role: 'read',
  }),
  putApp: defineRoute({
    service,
    operationId: 'putApp',
    summary:
      'Creates (201) or replaces (200) the spec, idempotently; instances converge to it. Every bad field is listed in error.issues.',
    method: 'PUT',
    path: '/v1/apps/{app}',
    params: AppPathSchema,
    body: AppSpecSchema,
    success: [200, 201],
    response: AppResourceSchema,
    errors: [Unavailable],
    role: 'admin',
  }),
  getApp: defineRoute({
    service,
    operationId: 'getApp',
    summary: 'The app',
    method: 'GET',
    path: '/v1/apps/{app}',
    params: AppPathSchema,
    success: [200],
    response: AppResourceSchema,
    errors: [NotFound, Unavailable],
    role: 'read',
  }),
  deleteApp: defineRoute({
    service,
    operationId: 'deleteApp',
    summary: 'Withdraws every instance gracefully; the app is removed once none is left.',
    method: 'DELETE',
    path: '/v1/apps/{app}',
    params: AppPathSchema,
    success: [202],
    response: AppResourceSchema,
    errors: [NotFound, Unavailable],
    role: 'admin',
  }),
  listInstances: defineRoute({
    service,
    operationId: 'listInstances',
    summary: 'Instances that are not gone (or, with state=gone, recently gone ones)',
    method: 'GET',
    path: '/v1/instances',
    query: InstanceListQuerySchema,
    success: [200],
    response: InstanceListSchema,
    errors: [Unavailable],
    role: 'read',
  }),
  getInstance: defineRoute({
    service,
    operationId: 'getInstance',
    summary: 'The instance',
    method: 'GET',
    path: '/v1/instances/{instanceId}',
    params: InstancePathSchema,
    success: [200],
    response: InstanceResourceSchema,
    errors: [NotFound, Unavailable],
    role: 'read',
  }),
  getInstanceLogs: defineRoute({
    service,
    operationId: 'getInstanceLogs',
    summary: 'The last lines the instance wrote',
    method: 'GET',
    path: '/v1/instances/{instanceId}/logs',
    params: InstancePathSchema,
    query: InstanceLogsQuerySchema,
    success: [200],
    response: InstanceLogsSchema,
    errors: [NotFound, Unavailable],
    role: 'read',
  }),
} as const;

export const instanceManagerApi = defineApi({
  service,
  title: 'instance-manager',
  description: 'App specs and their sandboxed instances.',
  schemas: {
    AppSpec: AppSpecSchema,
    AppResource: AppResourceSchema,
    AppList: AppListSchema,
    InstanceResource: InstanceResourceSchema,
    InstanceList: InstanceListSchema,
    InstanceLogs: InstanceLogsSchema,
  },
  routes: instanceManagerRoutes,
});
