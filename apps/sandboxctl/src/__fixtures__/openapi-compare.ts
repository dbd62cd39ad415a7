import { jsonSchemaOf, type RouteContract } from '@sandbox/protocol';
import { z } from 'zod';

type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { schemas: Record<string, unknown> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** A schema of the document: a component it refers to, or the schema written inline. */
function resolve(document: Document, schema: { $ref?: string } | undefined): unknown {
  if (schema?.$ref === undefined) return schema;
  return document.components.schemas[schema.$ref.split('/').at(-1) ?? ''];
}

/**
 * Every difference between the route contracts sandboxctl calls through and a service's OpenAPI
 * document as it serves it: operations missing on either side, operationIds, query parameters, and
 * request and response schemas (the document's JSON Schema against the contract's zod schema rendered
 * the same way). Empty when they agree.
 */
export function compareWithOpenApi(routes: readonly RouteContract[], document: Document): string[] {
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
        `${method.toUpperCase()} ${path} (${operation.operationId}) is documented but not in the contracts`,
      );
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const operation = document.paths[route.path]?.[route.method.toLowerCase()] as Operation | undefined;
    if (!operation) {
      problems.push(`${name} is in the contracts but not documented`);
      continue;
    }
    if (operation.operationId !== route.operationId)
      problems.push(`${name}: operationId ${operation.operationId}`);
    const documentedQuery = (operation.parameters ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort();
    const contractQuery = route.query instanceof z.ZodObject ? Object.keys(route.query.shape).sort() : [];
    if (documentedQuery.join() !== contractQuery.join())
      problems.push(
        `${name}: query ${documentedQuery.join()} documented, ${contractQuery.join()} in the contract`,
      );
    if (route.body) {
      const body = resolve(document, operation.requestBody?.content['application/json']?.schema);
      if (JSON.stringify(body) !== JSON.stringify(jsonSchemaOf(route.body, 'input')))
        problems.push(`${name}: request body differs`);
    }
    const mediaType = route.produces ?? 'application/json';
    for (const status of route.success) {
      const documentedResponse = operation.responses[String(status)];
      if (documentedResponse === undefined) {
        problems.push(`${name}: ${status} is not documented`);
        continue;
      }
      if (route.response === undefined || mediaType !== 'application/json') continue;
      const response = resolve(document, documentedResponse.content?.[mediaType]?.schema);
      if (JSON.stringify(response) !== JSON.stringify(jsonSchemaOf(route.response, 'output')))
        problems.push(`${name}: ${status} response differs`);
    }
  }
  return problems;
}
