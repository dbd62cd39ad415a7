import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ErrorCode, HTTP_STATUS_OF_ERROR_CODE } from '../errors/error-codes';
import { ALL_APIS } from './index';
import { openApiDocument } from './openapi';
import { defineApi, defineRoute, expressPath, pathParameterNames, roleOfMethod } from './route-contract';

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsIn(inner, found);
    }
  return found;
}

describe('the route contracts', () => {
  it('cover the six services that serve an API', () => {
    expect(ALL_APIS.map((api) => api.service)).toEqual([
      'instance-manager',
      'adapter',
      'drain-controller',
      'redemption-handoff',
      'verifier',
      'dashboard',
    ]);
  });

  it.each(ALL_APIS.map((api) => [api.service, api] as const))(
    '%s: each route belongs to it, names its path parameters and needs the role its method is given',
    (service, api) => {
      const routes = Object.values(api.routes);
      expect(new Set(routes.map((route) => route.operationId)).size).toBe(routes.length);
      for (const route of routes) {
        expect(route.service).toBe(service);
        expect(Object.keys(route.params?.shape ?? {})).toEqual(pathParameterNames(route.path));
        // The access policy grants by method; Node's intake brings its own credential.
        if (route.role !== 'intake') expect(route.role).toBe(roleOfMethod(route.method));
        for (const status of route.success) expect(status < 400).toBe(true);
      }
    },
  );

  it.each(ALL_APIS.map((api) => [api.service, api] as const))(
    '%s: the generated document has every route, resolves every reference and uses every named schema',
    (_service, api) => {
      const document = openApiDocument(api);
      for (const route of Object.values(api.routes)) {
        const operation = document.paths[route.path]?.[route.method.toLowerCase()] as {
          operationId: string;
          'x-required-role': string;
          responses: Record<string, unknown>;
        };
        expect(operation.operationId).toBe(route.operationId);
        expect(operation['x-required-role']).toBe(route.role);
        for (const code of route.errors as readonly ErrorCode[])
          expect(Object.keys(operation.responses)).toContain(String(HTTP_STATUS_OF_ERROR_CODE[code]));
      }
      for (const ref of refsIn(document))
        expect(document.components.schemas[ref.replace('#/components/schemas/', '')]).toBeDefined();
      expect(Object.keys(document.components.schemas)).toEqual([...Object.keys(api.schemas), 'ErrorBody']);
    },
  );

  it('documents the error statuses from the one table, with the codes each carries', () => {
    const document = openApiDocument(ALL_APIS[2]);
    const extend = document.paths['/v1/drains/{id}/extend']?.['post'] as {
      responses: Record<string, { description: string }>;
    };
    expect(extend.responses['409']?.description).toBe(
      'drain_finished, drain_phase_conflict, drain_window_exceeded',
    );
    expect(Object.keys(extend.responses)).toEqual(['200', '400', '401', '403', '404', '409', '421', '503']);
  });

  it('refuses a schema named both as a request and as a response, and a path without its params', () => {
    const Thing = z.strictObject({ a: z.string() });
    const route = {
      service: 'adapter',
      summary: 'x',
      success: [200],
      errors: [],
      role: 'admin',
    } as const;
    const both = defineApi({
      service: 'adapter',
      title: 't',
      description: 'd',
      schemas: { Thing },
      routes: {
        put: defineRoute({
          ...route,
          operationId: 'put',
          method: 'PUT',
          path: '/t',
          body: Thing,
          response: Thing,
        }),
      },
    });
    expect(() => openApiDocument(both)).toThrow('schema Thing is used both as a request and as a response');
    const unnamed = defineApi({
      ...both,
      routes: { get: defineRoute({ ...route, operationId: 'get', method: 'PUT', path: '/t/{id}' }) },
    });
    expect(() => openApiDocument(unnamed)).toThrow('path /t/{id} and its params () differ');
  });

  it('gives every error code a client or server status', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(HTTP_STATUS_OF_ERROR_CODE[code]).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS_OF_ERROR_CODE[code]).toBeLessThan(600);
    }
    expect(expressPath('/v1/drains/{id}/extend')).toBe('/v1/drains/:id/extend');
  });
});
