import { ErrorBodySchema } from '@sandbox/protocol';
import { Router } from 'express';
import { z } from 'zod';

/** A component schema: request bodies in their input form (defaults optional), responses as sent. */
export interface OpenApiComponent {
  schema: z.ZodType;
  io: 'input' | 'output';
}

/** Helpers for writing an API's paths against its named components. */
export interface OpenApiParts<C extends string> {
  /** The JSON Schema of a zod schema (without the `$schema` dialect). */
  jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown>;
  /** An `application/json` content of component `name`. */
  json(name: C | 'ErrorBody'): { content: { 'application/json': { schema: { $ref: string } } } };
  /** A response with the protocol error body. */
  error(description: string): Record<string, unknown>;
  /** A required path parameter validated by `schema`. */
  pathParam(name: string, schema: z.ZodType): Record<string, unknown>;
  /** The 503 every route may answer when Redis is unavailable. */
  readonly unavailable: { '503': Record<string, unknown> };
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions<C extends string> {
  title: string;
  description: string;
  /** @defaultValue '1.0.0' */
  version?: string;
  /** Named schemas; `ErrorBody` (the protocol error body) is added after them. */
  components: Record<C, OpenApiComponent>;
  paths(parts: OpenApiParts<C>): Record<string, unknown>;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema: _dialect, ...rest } = generated;
  return rest;
}

function openApiParts<C extends string>(): OpenApiParts<C> {
  const json = (name: string) => ({
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
  });
  const error = (description: string) => ({ description, ...json('ErrorBody') });
  return {
    jsonSchema,
    json,
    error,
    pathParam: (name, schema) => ({ name, in: 'path', required: true, schema: jsonSchema(schema, 'input') }),
    unavailable: { '503': error('Redis is unavailable; retry') },
  };
}

/** An API's OpenAPI 3.1 document, generated from the same zod schemas its routes validate with. */
export function buildOpenApiDocument<C extends string>(
  options: OpenApiDocumentOptions<C>,
): Record<string, unknown> {
  const components: [string, OpenApiComponent][] = [
    ...(Object.entries(options.components) as [string, OpenApiComponent][]),
    ['ErrorBody', { schema: ErrorBodySchema, io: 'output' }],
  ];
  const schemas = Object.fromEntries(
    components.map(([name, { schema, io }]) => [name, jsonSchema(schema, io)]),
  );
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version ?? '1.0.0', description: options.description },
    paths: options.paths(openApiParts<C>()),
    components: { schemas },
  };
}

/** `GET /v1/openapi.json`, answering `document` (built once). */
export function openApiRouter(document: Record<string, unknown>): Router {
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  return router;
}
