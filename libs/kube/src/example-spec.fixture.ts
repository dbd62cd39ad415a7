import type { AppSpec } from '@sandbox/protocol';
import { AppSpecSchema } from '@sandbox/protocol';

/** A parsed example spec for builder tests; `overrides` replace top-level fields before parsing. */
export function exampleAppSpec(overrides: Record<string, unknown> = {}): AppSpec {
  return AppSpecSchema.parse({
    image: 'localhost/example-app:1.0',
    port: 8080,
    healthCheck: { type: 'http', path: '/healthz' },
    resources: { cpu: '500m', memory: '256Mi' },
    mode: 'persistent',
    instances: { kind: 'single-session', warmPool: 2, max: 4 },
    env: { GREETING: 'hello' },
    ...overrides,
  });
}
