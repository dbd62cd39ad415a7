import { describe, expect, it } from '@jest/globals';
import { drainControllerApi } from './drain-controller.contract';
import { openApiDocument } from './openapi';

describe('the OpenAPI document', () => {
  it('describes every route, with durations as strings in the request bodies', () => {
    const document = openApiDocument(drainControllerApi) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, { type?: string }> }> };
    };
    expect(Object.keys(document.paths)).toEqual([
      '/v1/drains',
      '/v1/drains/{id}',
      '/v1/drains/{id}/abort',
      '/v1/drains/{id}/extend',
    ]);
    expect(document.components.schemas.CreateDrainRequest?.properties?.window?.type).toBe('string');
    expect(document.components.schemas.Drain?.properties?.windowMs?.type).toBe('integer');
  });
});
