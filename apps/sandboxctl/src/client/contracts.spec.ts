import { describe, expect, it } from '@jest/globals';
import { ALL_APIS, AppListSchema, instanceManagerRoutes, openApiDocument } from '@sandbox/protocol';
import { compareWithOpenApi } from '../__fixtures__/openapi-compare';

describe("the contracts sandboxctl calls through and the services' OpenAPI documents", () => {
  it.each(ALL_APIS.map((api) => [api.service, api] as const))(
    '%s: its generated document describes every contract route, schema for schema',
    (_service, api) => {
      expect(compareWithOpenApi(Object.values(api.routes), openApiDocument(api))).toEqual([]);
    },
  );

  it('names every difference', () => {
    const document = openApiDocument(ALL_APIS[0]);
    const altered = { ...instanceManagerRoutes.getApp, response: AppListSchema };
    const problems = compareWithOpenApi([altered], document);
    expect(problems).toContain('GET /v1/apps/{app}: 200 response differs');
    expect(problems).toContain('GET /v1/apps (listApps) is documented but not in the contracts');
    const renamed = { ...instanceManagerRoutes.putApp, operationId: 'replaceApp' };
    expect(compareWithOpenApi([renamed], document)).toContain('PUT /v1/apps/{app}: operationId putApp');
  });
});
