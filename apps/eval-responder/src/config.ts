import { coreEnvSchema, portField } from '@sandbox/service-kit';
import { z } from 'zod';

/**
 * The responder's environment: where to listen, logs and shutdown (the service kit's core fields). It
 * takes no key, token or credential, and uses neither Redis nor a management API.
 */
export const ResponderConfigSchema = coreEnvSchema({
  port: 8080,
  shutdownTimeoutMs: 5_000,
  drainDelayMs: 0,
}).extend({
  PORT: portField(8080),
  /** Images set 0.0.0.0 so the app answers on the sandbox's veth address. */
  HOST: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
});
export type ResponderConfig = z.output<typeof ResponderConfigSchema>;

/** Parses the environment; the problems are listed on failure. */
export function loadConfig(env: Record<string, string | undefined>): ResponderConfig {
  return ResponderConfigSchema.parse(env);
}

export function processEnv(): Record<string, string | undefined> {
  return process.env;
}
