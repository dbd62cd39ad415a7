import { AppSpecSchema } from '@sandbox/protocol';
import type { AppSpec } from '@sandbox/protocol';

/** A parsed single-session spec for tests. */
export function singleSessionSpec(
  warmPool: number,
  max: number,
  overrides: Record<string, unknown> = {},
): AppSpec {
  return AppSpecSchema.parse({
    image: 'localhost/example-app:1.0',
    port: 8080,
    healthCheck: { type: 'http', path: '/healthz' },
    resources: { cpu: '500m', memory: '256Mi' },
    mode: 'persistent',
    instances: { kind: 'single-session', warmPool, max },
    ...overrides,
  });
}

/** A parsed reusable spec for tests. */
export function reusableSpec(capacity: number, minReplicas: number, maxReplicas: number): AppSpec {
  return AppSpecSchema.parse({
    image: 'localhost/example-app:1.0',
    port: 8080,
    healthCheck: { type: 'tcp' },
    resources: { cpu: '1', memory: '128Mi' },
    mode: 'single-shot',
    instances: { kind: 'reusable', capacity, minReplicas, maxReplicas },
  });
}
