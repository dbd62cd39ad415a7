import { describe, expect, it } from '@jest/globals';
import { formatZodIssues } from '../errors/format-zod-issues';
import { AppSpecSchema, type AppSpecInput } from './app-spec.schema';

const reusable: AppSpecInput = {
  image: 'localhost/example-app:1.0',
  port: 8080,
  args: ['--listen', '0.0.0.0:8080'],
  env: { LOG_LEVEL: 'info', GREETING: 'héllo' },
  healthCheck: { type: 'http', path: '/healthz' },
  resources: { cpu: '500m', memory: '256Mi' },
  mode: 'persistent',
  instances: { kind: 'reusable', capacity: 8, minReplicas: 1, maxReplicas: 4 },
  price: { usd: '0.10', unit: 'hour' },
  metadata: '{"description":"example"}',
  gpu: { name: 'NVIDIA L4' },
  version: '1.0.0',
  egress: 'internet',
};

const singleSession: AppSpecInput = {
  image: 'registry.example.com:5000/team/eval-responder@sha256:' + 'a'.repeat(64),
  port: 3000,
  healthCheck: { type: 'tcp' },
  resources: { cpu: '1', memory: '1Gi' },
  mode: 'single-shot',
  instances: { kind: 'single-session', warmPool: 2, max: 10 },
};

function pathsOf(value: unknown): string[] {
  const result = AppSpecSchema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe('AppSpecSchema', () => {
  it('accepts a full reusable spec unchanged, with the health status defaulted', () => {
    expect(AppSpecSchema.parse(reusable)).toEqual({
      ...reusable,
      healthCheck: { type: 'http', path: '/healthz', expectedStatus: 200 },
    });
  });

  it('accepts a minimal single-session spec and fills the defaults', () => {
    expect(AppSpecSchema.parse(singleSession)).toEqual({
      ...singleSession,
      args: [],
      env: {},
      metadata: '',
      egress: 'none',
    });
  });

  it('is idempotent: parsing a parsed spec gives the same spec', () => {
    const once = AppSpecSchema.parse(singleSession);
    expect(AppSpecSchema.parse(once)).toEqual(once);
  });

  it('reports the path of every bad field at once', () => {
    const bad = {
      ...reusable,
      image: 'Not An Image',
      port: 70_000,
      args: ['ok', 'nul\0byte'],
      env: { 'BAD-NAME': 'x', GOOD: 5 },
      healthCheck: { type: 'http', path: 'healthz', expectedStatus: 700 },
      resources: { cpu: '5m', memory: '1G' },
      mode: 'batch',
      instances: { kind: 'reusable', capacity: 10_001, minReplicas: 1, maxReplicas: 300 },
      price: { usd: '0', unit: 'day' },
      metadata: '€'.repeat(342),
      gpu: {},
      egress: 'cluster',
    };
    expect(pathsOf(bad).sort()).toEqual(
      [
        'image',
        'port',
        'args.1',
        'env.BAD-NAME',
        'env.GOOD',
        'healthCheck.path',
        'healthCheck.expectedStatus',
        'resources.cpu',
        'resources.memory',
        'mode',
        'instances.capacity',
        'instances.maxReplicas',
        'price.usd',
        'price.unit',
        'metadata',
        'gpu',
        'egress',
      ].sort(),
    );
  });

  it('requires min ≤ max for both instance kinds', () => {
    expect(
      pathsOf({ ...reusable, instances: { kind: 'reusable', capacity: 1, minReplicas: 5, maxReplicas: 2 } }),
    ).toEqual(['instances.maxReplicas']);
    expect(pathsOf({ ...singleSession, instances: { kind: 'single-session', warmPool: 3, max: 2 } })).toEqual(
      ['instances.max'],
    );
    expect(pathsOf({ ...singleSession, instances: { kind: 'single-session', warmPool: 0, max: 0 } })).toEqual(
      ['instances.max'],
    );
  });

  it('allows scale to zero and capacity at both limits', () => {
    for (const capacity of [1, 10_000]) {
      const instances = { kind: 'reusable', capacity, minReplicas: 0, maxReplicas: 256 };
      expect(pathsOf({ ...reusable, instances })).toEqual([]);
    }
  });

  it('rejects a capacity on single-session instances and an unknown kind', () => {
    expect(
      pathsOf({ ...singleSession, instances: { kind: 'single-session', warmPool: 1, max: 2, capacity: 4 } }),
    ).toEqual(['instances']);
    expect(pathsOf({ ...singleSession, instances: { kind: 'pooled', warmPool: 1, max: 2 } })).toEqual([
      'instances.kind',
    ]);
  });

  it('rejects missing required fields and unknown fields', () => {
    const { image: _image, resources: _resources, ...rest } = reusable;
    expect(pathsOf({ ...rest, name: 'example-app' }).sort()).toEqual(['(root)', 'image', 'resources']);
  });

  it('limits the number of args and env vars', () => {
    const env = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`V${i}`, 'x']));
    expect(pathsOf({ ...reusable, args: Array(129).fill('a'), env }).sort()).toEqual(['args', 'env']);
  });
});
