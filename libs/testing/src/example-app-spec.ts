import type { AppSpecInput } from '@sandbox/protocol';

/**
 * The example app (apps/example-app) as an app spec: its port, its HTTP health check, half a CPU and
 * 256 MiB, persistent. `extra` replaces top-level fields (resources, egress, env…).
 */
export function exampleAppSpec(
  image: string,
  instances: AppSpecInput['instances'],
  extra: Partial<AppSpecInput> = {},
): AppSpecInput {
  return {
    image,
    port: 8080,
    healthCheck: { type: 'http', path: '/healthz' },
    resources: { cpu: '500m', memory: '256Mi' },
    mode: 'persistent',
    instances,
    ...extra,
  };
}
