import { z } from 'zod';

/** The responder's environment: where to listen. It takes no key, token or credential. */
export const ResponderConfigSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  /** Images set 0.0.0.0 so the app answers on the sandbox's veth address. */
  HOST: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
});
export type ResponderConfig = z.infer<typeof ResponderConfigSchema>;

/** Parses the environment; the problems are listed on failure. */
export function loadConfig(env: Record<string, string | undefined>): ResponderConfig {
  return ResponderConfigSchema.parse(env);
}

export function processEnv(): Record<string, string | undefined> {
  return process.env;
}
