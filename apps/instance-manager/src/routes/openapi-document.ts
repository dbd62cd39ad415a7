import {
  AppListSchema,
  AppNameSchema,
  AppResourceSchema,
  AppSpecSchema,
  InstanceIdSchema,
  InstanceListSchema,
  InstanceLogsSchema,
  InstanceResourceSchema,
  InstanceStateSchema,
  MAX_LOG_TAIL,
} from '@sandbox/protocol';
import { buildOpenApiDocument as buildDocument, type OpenApiParts } from '@sandbox/service-kit';

/** Request bodies in their input form (defaults optional), responses as sent. */
const COMPONENTS = {
  AppSpec: { schema: AppSpecSchema, io: 'input' },
  AppResource: { schema: AppResourceSchema, io: 'output' },
  AppList: { schema: AppListSchema, io: 'output' },
  InstanceResource: { schema: InstanceResourceSchema, io: 'output' },
  InstanceList: { schema: InstanceListSchema, io: 'output' },
  InstanceLogs: { schema: InstanceLogsSchema, io: 'output' },
} as const;

type Parts = OpenApiParts<keyof typeof COMPONENTS>;

function appPaths({ json, error, pathParam, unavailable }: Parts): Record<string, unknown> {
  return {
    '/v1/apps': {
      get: {
        operationId: 'listApps',
        responses: { '200': { description: 'Every app', ...json('AppList') }, ...unavailable },
      },
    },
    '/v1/apps/{app}': {
      parameters: [pathParam('app', AppNameSchema)],
      put: {
        operationId: 'putApp',
        description: 'Creates or replaces the spec (idempotent); instances converge to it.',
        requestBody: { required: true, ...json('AppSpec') },
        responses: {
          '200': { description: 'Updated or unchanged', ...json('AppResource') },
          '201': { description: 'Created', ...json('AppResource') },
          '400': error('Invalid spec: every bad field is listed in error.issues'),
          ...unavailable,
        },
      },
      get: {
        operationId: 'getApp',
        responses: {
          '200': { description: 'The app', ...json('AppResource') },
          '404': error('No such app'),
          ...unavailable,
        },
      },
      delete: {
        operationId: 'deleteApp',
        description: 'Withdraws every instance gracefully; the app is removed once none is left.',
        responses: {
          '202': { description: 'Deleting', ...json('AppResource') },
          '404': error('No such app'),
          ...unavailable,
        },
      },
    },
  };
}

function instancePaths({ json, error, jsonSchema, pathParam, unavailable }: Parts): Record<string, unknown> {
  const instanceParam = pathParam('instanceId', InstanceIdSchema);
  return {
    '/v1/instances': {
      get: {
        operationId: 'listInstances',
        parameters: [
          { name: 'app', in: 'query', schema: jsonSchema(AppNameSchema, 'input') },
          { name: 'state', in: 'query', schema: jsonSchema(InstanceStateSchema, 'input') },
        ],
        responses: {
          '200': {
            description: 'Instances that are not gone (or, with state=gone, recently gone ones)',
            ...json('InstanceList'),
          },
          '400': error('Invalid query'),
          ...unavailable,
        },
      },
    },
    '/v1/instances/{instanceId}': {
      parameters: [instanceParam],
      get: {
        operationId: 'getInstance',
        responses: {
          '200': { description: 'The instance', ...json('InstanceResource') },
          '404': error('No such instance'),
          ...unavailable,
        },
      },
    },
    '/v1/instances/{instanceId}/logs': {
      parameters: [instanceParam],
      get: {
        operationId: 'getInstanceLogs',
        parameters: [
          {
            name: 'tail',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: MAX_LOG_TAIL, default: 200 },
          },
        ],
        responses: {
          '200': { description: 'The last lines the instance wrote', ...json('InstanceLogs') },
          '404': error('No such instance'),
          ...unavailable,
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the instance-manager API, generated from the protocol's zod schemas. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return buildDocument({
    title: 'instance-manager',
    description: 'App specs and their sandboxed instances.',
    components: COMPONENTS,
    paths: (parts) => ({ ...appPaths(parts), ...instancePaths(parts) }),
  });
}
