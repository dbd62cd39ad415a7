import { z } from 'zod';
import type { RouteDefinition } from '../client/route';

type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { schemas: Record<string, unknown> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function component(document: Document, ref: { $ref: string } | undefined): unknown {
  return ref ? document.components.schemas[ref.$ref.split('/').at(-1) ?? ''] : undefined;
}

/**
 * Every difference between a route table and an OpenAPI document: operations missing on either side,
 * query parameters, and request and response schemas (the document's JSON Schema against the table's
 * zod schema rendered the same way). Empty when they agree.
 */
export function compareWithOpenApi(routes: readonly RouteDefinition[], document: Document): string[] {
  const problems: string[] = [];
  const documented = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => ({
      path,
      method,
      operation: item[method] as Operation,
    })),
  );
  for (const { path, method, operation } of documented)
    if (!routes.some((route) => route.path === path && route.method.toLowerCase() === method))
      problems.push(
        `${method.toUpperCase()} ${path} (${operation.operationId}) is documented but not in the table`,
      );
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const operation = document.paths[route.path]?.[route.method.toLowerCase()] as Operation | undefined;
    if (!operation) {
      problems.push(`${name} is in the table but not documented`);
      continue;
    }
    if (operation.operationId !== route.operationId)
      problems.push(`${name}: operationId ${operation.operationId}`);
    const documentedQuery = (operation.parameters ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort();
    const tableQuery = route.query instanceof z.ZodObject ? Object.keys(route.query.shape).sort() : [];
    if (documentedQuery.join() !== tableQuery.join())
      problems.push(`${name}: query ${documentedQuery.join()} documented, ${tableQuery.join()} in the table`);
    if (route.body) {
      const body = component(document, operation.requestBody?.content['application/json']?.schema);
      if (JSON.stringify(body) !== JSON.stringify(jsonSchema(route.body, 'input')))
        problems.push(`${name}: request body differs`);
    }
    for (const status of route.success) {
      const response = component(
        document,
        operation.responses[String(status)]?.content?.['application/json']?.schema,
      );
      if (JSON.stringify(response) !== JSON.stringify(jsonSchema(route.response, 'output')))
        problems.push(`${name}: ${status} response differs`);
    }
  }
  return problems;
}
