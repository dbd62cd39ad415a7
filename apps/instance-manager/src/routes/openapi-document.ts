import {
  AppListSchema,
  AppNameSchema,
  AppResourceSchema,
  AppSpecSchema,
  ErrorBodySchema,
  InstanceIdSchema,
  InstanceListSchema,
  InstanceLogsSchema,
  InstanceResourceSchema,
  InstanceStateSchema,
  MAX_LOG_TAIL,
} from '@sandbox/protocol';
import { z } from 'zod';

/** Component schemas: request bodies in their input form (defaults optional), responses as sent. */
const COMPONENTS: Record<string, { schema: z.ZodType; io: 'input' | 'output' }> = {
  AppSpec: { schema: AppSpecSchema, io: 'input' },
  AppResource: { schema: AppResourceSchema, io: 'output' },
  AppList: { schema: AppListSchema, io: 'output' },
  InstanceResource: { schema: InstanceResourceSchema, io: 'output' },
  InstanceList: { schema: InstanceListSchema, io: 'output' },
  InstanceLogs: { schema: InstanceLogsSchema, io: 'output' },
  ErrorBody: { schema: ErrorBodySchema, io: 'output' },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const ref = (name: keyof typeof COMPONENTS & string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const error = (description: string) => ({ description, ...json('ErrorBody') });

const appParam = { name: 'app', in: 'path', required: true, schema: jsonSchema(AppNameSchema, 'input') };
const instanceParam = {
  name: 'instanceId',
  in: 'path',
  required: true,
  schema: jsonSchema(InstanceIdSchema, 'input'),
};
const common = { '503': error('Redis is unavailable; retry') };

/** The OpenAPI 3.1 document of the instance-manager API, generated from the protocol's zod schemas. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const schemas = Object.fromEntries(
    Object.entries(COMPONENTS).map(([name, { schema, io }]) => [name, jsonSchema(schema, io)]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'instance-manager',
      version: '1.0.0',
      description: 'App specs and their sandboxed instances.',
    },
    paths: {
      '/v1/apps': {
        get: {
          operationId: 'listApps',
          responses: { '200': { description: 'Every app', ...json('AppList') }, ...common },
        },
      },
      '/v1/apps/{app}': {
        parameters: [appParam],
        put: {
          operationId: 'putApp',
          description: 'Creates or replaces the spec (idempotent); instances converge to it.',
          requestBody: { required: true, ...json('AppSpec') },
          responses: {
            '200': { description: 'Updated or unchanged', ...json('AppResource') },
            '201': { description: 'Created', ...json('AppResource') },
            '400': error('Invalid spec: every bad field is listed in error.issues'),
            ...common,
          },
        },
        get: {
          operationId: 'getApp',
          responses: {
            '200': { description: 'The app', ...json('AppResource') },
            '404': error('No such app'),
            ...common,
          },
        },
        delete: {
          operationId: 'deleteApp',
          description: 'Withdraws every instance gracefully; the app is removed once none is left.',
          responses: {
            '202': { description: 'Deleting', ...json('AppResource') },
            '404': error('No such app'),
            ...common,
          },
        },
      },
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
            ...common,
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
            ...common,
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
            ...common,
          },
        },
      },
    },
    components: { schemas },
  };
}
