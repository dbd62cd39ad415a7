import { flagField, hostField, logLevelField, nodeEnvField, portField } from '@sandbox/service-kit';
import { z } from 'zod';

export const DashboardConfigSchema = z.object({
  PORT: portField(7100),
  HOST: hostField(),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6390'),
  /** BullMQ key prefix the services use. */
  QUEUE_PREFIX: z.string().min(1).default('bull'),
  /** Read-only unless this is set: retry, clean, promote, pause and resume become available. */
  DASHBOARD_WRITABLE: flagField(false),
  LOG_LEVEL: logLevelField(),
  NODE_ENV: nodeEnvField(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(10_000),
});

export type DashboardConfig = z.infer<typeof DashboardConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
