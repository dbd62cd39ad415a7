// Configuration of the fixture service the process-level specs start.
import { z } from 'zod';
import { baseEnvSchema, flagField, secretFilePathField } from '../../index';

export const FixtureConfigSchema = baseEnvSchema({
  port: 0,
  shutdownTimeoutMs: 10_000,
  drainDelayMs: 0,
}).extend({
  FIXTURE_NAME: z.string().min(1),
  /** A readiness-phase hook that holds the shutdown until `POST /release` is called. */
  FIXTURE_HOLD_SHUTDOWN: flagField(false),
  /** A workers-phase hook that never finishes, to prove the hard timeout. */
  FIXTURE_HANG_WORKERS: flagField(false),
  /** A secret file whose value is logged in every way we know, to prove none reaches stdout. */
  FIXTURE_CANARY_FILE: secretFilePathField().optional(),
});

export type FixtureConfig = z.infer<typeof FixtureConfigSchema>;

export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
