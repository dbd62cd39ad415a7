import {
  AppListSchema,
  AppPathSchema,
  AppResourceSchema,
  AppSpecSchema,
  InstanceListQuerySchema,
  InstanceListSchema,
  InstanceLogsQuerySchema,
  InstanceLogsSchema,
  InstancePathSchema,
  InstanceResourceSchema,
} from '@sandbox/protocol';
import type { ServiceDefinition } from '../config';
import { defineRoute } from './route';

const service = 'instance-manager';

/** The service and its port in the embedded stack. */
export const instanceManagerService: ServiceDefinition = {
  name: service,
  defaultUrl: 'http://127.0.0.1:7101',
};

/** The instance-manager API (its OpenAPI document at `/v1/openapi.json` is checked against this table). */
export const instanceManagerRoutes = {
  listApps: defineRoute({
    service,
    operationId: 'listApps',
    method: 'GET',
    path: '/v1/apps',
    success: [200],
    response: AppListSchema,
  }),
  putApp: defineRoute({
    service,
    operationId: 'putApp',
    method: 'PUT',
    path: '/v1/apps/{app}',
    params: AppPathSchema,
    body: AppSpecSchema,
    success: [200, 201],
    response: AppResourceSchema,
  }),
  getApp: defineRoute({
    service,
    operationId: 'getApp',
    method: 'GET',
    path: '/v1/apps/{app}',
    params: AppPathSchema,
    success: [200],
    response: AppResourceSchema,
  }),
  deleteApp: defineRoute({
    service,
    operationId: 'deleteApp',
    method: 'DELETE',
    path: '/v1/apps/{app}',
    params: AppPathSchema,
    success: [202],
    response: AppResourceSchema,
  }),
  listInstances: defineRoute({
    service,
    operationId: 'listInstances',
    method: 'GET',
    path: '/v1/instances',
    query: InstanceListQuerySchema,
    success: [200],
    response: InstanceListSchema,
  }),
  getInstance: defineRoute({
    service,
    operationId: 'getInstance',
    method: 'GET',
    path: '/v1/instances/{instanceId}',
    params: InstancePathSchema,
    success: [200],
    response: InstanceResourceSchema,
  }),
  getInstanceLogs: defineRoute({
    service,
    operationId: 'getInstanceLogs',
    method: 'GET',
    path: '/v1/instances/{instanceId}/logs',
    params: InstancePathSchema,
    query: InstanceLogsQuerySchema,
    success: [200],
    response: InstanceLogsSchema,
  }),
} as const;
