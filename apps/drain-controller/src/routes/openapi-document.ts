import {
  CreateDrainRequestSchema,
  DrainIdSchema,
  DrainListSchema,
  DrainRecordSchema,
  ErrorBodySchema,
  ExtendDrainRequestSchema,
} from '@sandbox/protocol';
import { z } from 'zod';

/** Component schemas: request bodies in their input form (durations as strings), responses as sent. */
const COMPONENTS: Record<string, { schema: z.ZodType; io: 'input' | 'output' }> = {
  CreateDrainRequest: { schema: CreateDrainRequestSchema, io: 'input' },
  ExtendDrainRequest: { schema: ExtendDrainRequestSchema, io: 'input' },
  Drain: { schema: DrainRecordSchema, io: 'output' },
  DrainList: { schema: DrainListSchema, io: 'output' },
  ErrorBody: { schema: ErrorBodySchema, io: 'output' },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const error = (description: string) => ({ description, ...json('ErrorBody') });
const idParam = { name: 'id', in: 'path', required: true, schema: jsonSchema(DrainIdSchema, 'input') };
const common = { '503': error('Redis is unavailable; retry') };
const drain = (description: string) => ({ description, ...json('Drain') });

/** The OpenAPI 3.1 document of the drain-controller API, generated from the protocol's zod schemas. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const schemas = Object.fromEntries(
    Object.entries(COMPONENTS).map(([name, { schema, io }]) => [name, jsonSchema(schema, io)]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'drain-controller',
      version: '1.0.0',
      description: 'Planned orchestrator upgrades that keep every session alive for up to 12 hours.',
    },
    paths: {
      '/v1/drains': {
        post: {
          operationId: 'createDrain',
          requestBody: { required: true, ...json('CreateDrainRequest') },
          responses: {
            '201': drain('Started: withdrawing'),
            '400': error('Invalid body: every bad field is listed in error.issues'),
            '409': error('drain_in_progress: another drain is active'),
            ...common,
          },
        },
        get: {
          operationId: 'listDrains',
          responses: {
            '200': { description: 'The latest drains, newest first', ...json('DrainList') },
            ...common,
          },
        },
      },
      '/v1/drains/{id}': {
        parameters: [idParam],
        get: {
          operationId: 'getDrain',
          responses: { '200': drain('The drain'), '404': error('No such drain'), ...common },
        },
      },
      '/v1/drains/{id}/abort': {
        parameters: [idParam],
        post: {
          operationId: 'abortDrain',
          description:
            'Before the orchestrator is replaced: resumes at once. During the replacement: finishes it, then resumes.',
          responses: {
            '200': drain('Abort recorded'),
            '404': error('No such drain'),
            '409': error('drain_finished: the drain has ended'),
            ...common,
          },
        },
      },
      '/v1/drains/{id}/extend': {
        parameters: [idParam],
        post: {
          operationId: 'extendDrain',
          description:
            'Moves the deadline later while sessions are still allowed, never past 12 h from the start.',
          requestBody: { required: true, ...json('ExtendDrainRequest') },
          responses: {
            '200': drain('The new deadline'),
            '400': error('Invalid body'),
            '404': error('No such drain'),
            '409': error('drain_finished, drain_phase_conflict or drain_window_exceeded'),
            ...common,
          },
        },
      },
    },
    components: { schemas },
  };
}
