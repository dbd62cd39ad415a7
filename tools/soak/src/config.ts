import { loadConfig } from '@sandbox/service-kit';
import { inheritedEnv } from './stack-api';
import { z } from 'zod';

/** The soak's environment: where its instances live (apart from `npm start`'s and the tests'). */
export const SoakConfigSchema = z.object({
  /** Names the soak's instances' host objects; the leftover check looks for it. */
  SOAK_INSTANCE_PREFIX: z
    .string()
    .regex(/^[a-z]{2,4}$/)
    .default('sok'),
  SOAK_INSTANCE_SUBNET: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/)
    .default('10.227.0.0/22'),
});

export type SoakConfig = z.infer<typeof SoakConfigSchema> & { inherited: Record<string, string> };

/** Reads the process environment once. */
export function loadSoakConfig(): SoakConfig {
  return { ...loadConfig(SoakConfigSchema, process.env), inherited: inheritedEnv(process.env) };
}
