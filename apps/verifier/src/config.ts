import { baseEnvSchema, durationMsField, secretFilePathField } from '@sandbox/service-kit';
import { MAX_EVALUATIONS_PER_SESSION } from '@sandbox/protocol';
import { z } from 'zod';
import { PROBE_GAP_MS } from './plan/latency.step';

const count = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const seconds = (fallback: number, min: number) => z.coerce.number().min(min).max(600).default(fallback);
const httpUrl = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);

export const VerifierConfigSchema = baseEnvSchema({ port: 7105 }).extend({
  /** Prefix of reports and target records. Persistent: changing it forgets every result. */
  KEY_PREFIX: z
    .string()
    .regex(/^[a-z0-9:_-]{1,40}$/)
    .default('sandbox:verifier'),
  REDIS_STARTUP_TIMEOUT_MS: durationMsField(30_000, 1_000),

  /** Node's public URL: discovery, reservations and the session proxy. */
  NODE_URL: httpUrl('http://127.0.0.1:8935'),
  /** The remote signer that pays for sessions (the simulator serves one on its public listener). */
  SIGNER_URL: httpUrl('http://127.0.0.1:8935'),
  /** File holding the signer's credential (`Authorization: Bearer`). Secret. */
  SIGNER_SECRET_FILE: secretFilePathField(),
  /** File holding the verifier's Ed25519 secret key, 64 hex characters. Secret. */
  SIGNING_KEY_FILE: secretFilePathField(),
  VERIFIER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .default('sandbox-verifier'),

  /** Apps evaluated on a schedule (comma-separated); empty for on-demand runs only. */
  SCHEDULE_APPS: z
    .string()
    .default('eval-responder')
    .transform((text) =>
      text
        .split(',')
        .map((app) => app.trim())
        .filter(Boolean),
    ),
  SCHEDULE_EVERY_MS: durationMsField(15 * 60_000, 1_000),
  /** Runs of one scheduled tick start spread over this window. */
  SCHEDULE_JITTER_MS: durationMsField(60_000),
  /** A result stays current this long after its run. */
  RESULT_TTL_MS: durationMsField(60 * 60_000, 1_000),
  /** Reports are kept this long. */
  REPORT_RETENTION_MS: durationMsField(30 * 24 * 3_600_000, 60_000),

  LATENCY_PROBES: count(20, 20, 1_000),
  /** Each latency probe is sent this long after the previous answer, like ping (README, Accuracy). */
  LATENCY_GAP_MS: count(PROBE_GAP_MS, 0, 10_000),
  TRANSFER_SECONDS: seconds(10, 0.1),
  WARMUP_SECONDS: seconds(2, 0),
  MAX_TRANSFER_BYTES: count(4 * 1024 ** 3, 1024, 16 * 1024 ** 3),
  HASH_SHARES: count(400, 1, 10_000),
  HASH_DIFFICULTY_BITS: count(13, 0, 32),
  REQUEST_TIMEOUT_MS: durationMsField(10_000, 100),
  RUN_TIMEOUT_MS: durationMsField(120_000, 1_000),
  /** Top-ups are offered this often (Node meters every second; the signer skips covered cycles). */
  PAYMENT_INTERVAL_MS: durationMsField(3_000, 100),
  /** Evaluations of the plan per paid session (each with its own seed and report), unless a job says. */
  EVALUATIONS_PER_SESSION: count(1, 1, MAX_EVALUATIONS_PER_SESSION),
  /** Runs at once. */
  CONCURRENCY: count(1, 1, 16),
});

export type VerifierConfig = z.infer<typeof VerifierConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
