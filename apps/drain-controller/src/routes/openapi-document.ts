import {
  CreateDrainRequestSchema,
  DrainIdSchema,
  DrainListSchema,
  DrainRecordSchema,
  ExtendDrainRequestSchema,
} from '@sandbox/protocol';
import { buildOpenApiDocument as buildDocument, type OpenApiParts } from '@sandbox/service-kit';

/** Request bodies in their input form (durations as strings), responses as sent. */
const COMPONENTS = {
  CreateDrainRequest: { schema: CreateDrainRequestSchema, io: 'input' },
  ExtendDrainRequest: { schema: ExtendDrainRequestSchema, io: 'input' },
  Drain: { schema: DrainRecordSchema, io: 'output' },
  DrainList: { schema: DrainListSchema, io: 'output' },
} as const;

type Parts = OpenApiParts<keyof typeof COMPONENTS>;

function drainPaths({ json, error, pathParam, unavailable }: Parts): Record<string, unknown> {
  const idParam = pathParam('id', DrainIdSchema);
  const drain = (description: string) => ({ description, ...json('Drain') });
  return {
    '/v1/drains': {
      post: {
        operationId: 'createDrain',
        requestBody: { required: true, ...json('CreateDrainRequest') },
        responses: {
          '201': drain('Started: withdrawing'),
          '400': error('Invalid body: every bad field is listed in error.issues'),
          '409': error('drain_in_progress: another drain is active'),
          ...unavailable,
        },
      },
      get: {
        operationId: 'listDrains',
        responses: {
          '200': { description: 'The latest drains, newest first', ...json('DrainList') },
          ...unavailable,
        },
      },
    },
    '/v1/drains/{id}': {
      parameters: [idParam],
      get: {
        operationId: 'getDrain',
        responses: { '200': drain('The drain'), '404': error('No such drain'), ...unavailable },
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
          ...unavailable,
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
          ...unavailable,
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the drain-controller API, generated from the protocol's zod schemas. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return buildDocument({
    title: 'drain-controller',
    description: 'Planned orchestrator upgrades that keep every session alive for up to 12 hours.',
    components: COMPONENTS,
    paths: drainPaths,
  });
}
