import { z } from 'zod';
import { ErrorBodySchema, ErrorCode, HTTP_STATUS_OF_ERROR_CODE } from '../errors/error-codes';
import { pathParameterNames, type ApiContract, type RouteContract, type RouteRole } from './route-contract';

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  openapi: '3.1.0';
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
};

/** The component every error response refers to. */
export const ERROR_BODY_COMPONENT = 'ErrorBody';

/** The JSON Schema of a zod schema, as zod renders it, without the `$schema` dialect. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** The codes a route may answer by its role and its input, whatever it does. */
function commonErrors(route: RouteContract): ErrorCode[] {
  const input = route.params ?? route.query ?? route.body;
  const byRole: Record<RouteRole, ErrorCode[]> = {
    open: [],
    intake: [ErrorCode.Unauthenticated],
    read: [ErrorCode.Unauthenticated, ErrorCode.MisdirectedRequest],
    admin: [ErrorCode.Unauthenticated, ErrorCode.Forbidden, ErrorCode.MisdirectedRequest],
  };
  return [...(input === undefined ? [] : [ErrorCode.InvalidRequest]), ...byRole[route.role]];
}

const SUCCESS_DESCRIPTIONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  302: 'Found: see Location',
};

function security(role: RouteRole, basicAuth: boolean): Record<string, string[]>[] {
  if (role === 'open') return [];
  if (role === 'intake') return [{ intakeToken: [] }];
  return basicAuth ? [{ managementToken: [] }, { managementBasic: [] }] : [{ managementToken: [] }];
}

/**
 * The OpenAPI 3.1 document of an API, generated from its route contracts: every path, its path and
 * query parameters, request and response bodies (the API's named schemas as components: request bodies
 * in their input form, responses as sent), every error status with the codes it carries, and the role
 * each operation needs (`x-required-role`, and its security requirement).
 */
export function openApiDocument(api: ApiContract): OpenApiDocument {
  const names = new Map<z.ZodType, string>(
    Object.entries(api.schemas).map(([name, schema]) => [schema, name] as const),
  );
  const used = new Map<string, { schema: z.ZodType; io: 'input' | 'output' }>();
  const reference = (schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> => {
    const name = names.get(schema);
    if (name === undefined) return jsonSchemaOf(schema, io);
    const earlier = used.get(name);
    if (earlier !== undefined && earlier.io !== io)
      throw new Error(`${api.service}: schema ${name} is used both as a request and as a response`);
    used.set(name, { schema, io });
    return { $ref: `#/components/schemas/${name}` };
  };
  const json = (schema: z.ZodType, io: 'input' | 'output') => ({
    content: { 'application/json': { schema: reference(schema, io) } },
  });
  const errorBody = {
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_BODY_COMPONENT}` } } },
  };

  const operation = (route: RouteContract): Record<string, unknown> => {
    const responses: Record<string, unknown> = {};
    for (const status of route.success) {
      const description = SUCCESS_DESCRIPTIONS[status] ?? 'Success';
      responses[String(status)] =
        route.response === undefined
          ? { description }
          : route.produces === 'text/html'
            ? { description, content: { 'text/html': { schema: { type: 'string' } } } }
            : { description, ...json(route.response, 'output') };
    }
    const byStatus = new Map<number, Set<ErrorCode>>();
    for (const code of [...commonErrors(route), ...route.errors]) {
      const status = HTTP_STATUS_OF_ERROR_CODE[code];
      byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
    }
    for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b))
      responses[String(status)] = { description: [...codes].join(', '), ...errorBody };
    const query = parameters(route.query, 'query');
    return {
      operationId: route.operationId,
      summary: route.summary,
      'x-required-role': route.role,
      security: security(route.role, api.basicAuth ?? false),
      ...(query.length > 0 ? { parameters: query } : {}),
      ...(route.body ? { requestBody: { required: true, ...json(route.body, 'input') } } : {}),
      responses,
    };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of Object.values(api.routes)) {
    const names = pathParameterNames(route.path);
    const declared = Object.keys(route.params?.shape ?? {});
    if (names.join() !== declared.join())
      throw new Error(`${route.operationId}: path ${route.path} and its params (${declared.join()}) differ`);
    const item = (paths[route.path] ??= {});
    if (route.params && !('parameters' in item)) item['parameters'] = parameters(route.params, 'path');
    const method = route.method.toLowerCase();
    if (method in item) throw new Error(`${route.method} ${route.path} is declared twice`);
    item[method] = operation(route);
  }

  const schemas = Object.fromEntries([
    ...Object.keys(api.schemas).flatMap((name) => {
      const use = used.get(name);
      return use === undefined ? [] : [[name, jsonSchemaOf(use.schema, use.io)] as const];
    }),
    [ERROR_BODY_COMPONENT, jsonSchemaOf(ErrorBodySchema, 'output')] as const,
  ]);
  return {
    openapi: '3.1.0',
    info: { title: api.title, version: api.version ?? '1.0.0', description: api.description },
    paths,
    components: {
      schemas,
      securitySchemes: securitySchemes(api),
    },
  };
}

/** The credentials the API's routes take, by their roles. */
function securitySchemes(api: ApiContract): Record<string, unknown> {
  const intake = Object.values(api.routes).some((route) => route.role === 'intake');
  return {
    managementToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'The read token (GET) or the admin token (everything)',
    },
    ...(api.basicAuth
      ? {
          managementBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'A management token as the password, any user name',
          },
        }
      : {}),
    ...(intake
      ? { intakeToken: { type: 'http', scheme: 'bearer', description: "Node's intake credential" } }
      : {}),
  };
}

/** The path and query parameters of a route: each field of its schemas, as clients send it. */
function parameters(schema: z.ZodObject | undefined, where: 'path' | 'query'): Record<string, unknown>[] {
  return Object.entries(schema?.shape ?? {}).map(([name, field]) => ({
    name,
    in: where,
    required: where === 'path' || !(field as z.ZodType).safeParse(undefined).success,
    schema: jsonSchemaOf(field as z.ZodType, 'input'),
  }));
}
