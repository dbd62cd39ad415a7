import { baseEnvSchema, flagField } from '@sandbox/service-kit';
import type { z } from 'zod';

export const DashboardConfigSchema = baseEnvSchema({ port: 7100, shutdownTimeoutMs: 10_000 }).extend({
  /** Read-only unless this is set: retry, clean, promote, pause and resume become available. */
  DASHBOARD_WRITABLE: flagField(false),
});

export type DashboardConfig = z.infer<typeof DashboardConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
