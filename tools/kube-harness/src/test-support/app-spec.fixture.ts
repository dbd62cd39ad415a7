import { AppSpecSchema, type AppSpec, type AppSpecInput } from '@sandbox/protocol';

/** A valid app spec of the example app with small limits; `overrides` replace top-level fields. */
export function exampleAppSpec(image: string, overrides: Partial<AppSpecInput> = {}): AppSpec {
  return AppSpecSchema.parse({
    image,
    port: 8080,
    healthCheck: { type: 'http', path: '/healthz' },
    resources: { cpu: '500m', memory: '256Mi' },
    mode: 'persistent',
    instances: { kind: 'single-session', warmPool: 1, max: 2 },
    ...overrides,
  });
}
