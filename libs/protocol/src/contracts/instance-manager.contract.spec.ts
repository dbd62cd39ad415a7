import { describe, expect, it } from '@jest/globals';
import { instanceManagerApi } from './instance-manager.contract';
import { openApiDocument } from './openapi';

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

describe('the instance-manager OpenAPI document', () => {
  const document = openApiDocument(instanceManagerApi) as {
    openapi: string;
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, Record<string, unknown>> };
  };

  it('documents every route', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/v1/apps',
        '/v1/apps/{app}',
        '/v1/instances',
        '/v1/instances/{instanceId}',
        '/v1/instances/{instanceId}/logs',
      ].sort(),
    );
    expect(Object.keys(document.paths['/v1/apps/{app}'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'parameters',
      'put',
    ]);
  });

  it('resolves every reference, and describes the spec as clients send it', () => {
    for (const ref of refsIn(document)) {
      expect(document.components.schemas[ref.replace('#/components/schemas/', '')]).toBeDefined();
    }
    const spec = document.components.schemas['AppSpec'] as {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(spec.required.sort()).toEqual(['healthCheck', 'image', 'instances', 'mode', 'port', 'resources']);
    expect(Object.keys(spec.properties)).toEqual(
      expect.arrayContaining(['egress', 'price', 'metadata', 'gpu']),
    );
    const resource = document.components.schemas['AppResource'] as { required: string[] };
    expect(resource.required).toEqual(expect.arrayContaining(['spec', 'status', 'instances']));
  });
});
