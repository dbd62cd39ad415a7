import {
  durationMsField,
  flagField,
  hostField,
  listenPortField,
  logLevelField,
  nodeEnvField,
  secretFilePathField,
} from '@sandbox/service-kit';
import { z } from 'zod';

const rate = z.coerce.number().min(0).max(1).default(0);
const wei = (fallback: string) =>
  z
    .string()
    .regex(/^(?:0|[1-9][0-9]*)$/)
    .default(fallback);

export const RedeemerSimConfigSchema = z.object({
  PORT: listenPortField(7106),
  HOST: hostField(),
  LOG_LEVEL: logLevelField(),
  NODE_ENV: nodeEnvField(),
  SHUTDOWN_TIMEOUT_MS: durationMsField(10_000, 1_000),
  /** SQLite file of the simulated redeemer and its ledger (created 0600 in a 0700 folder). */
  SIM_DB_PATH: z.string().min(1).default('.data/redeemer-sim/redeemer.sqlite'),
  /** File holding the credential callers present as `Authorization: Bearer <credential>`. Secret. */
  REDEEMER_SECRET_FILE: secretFilePathField(),
  /** Only tickets paying this orchestrator are taken (422 recipient_mismatch otherwise). */
  SIM_RECIPIENT: z
    .string()
    .regex(/^0x[0-9a-f]{40}$/)
    .optional(),

  /** Added to every answer of the redeemer API. */
  SIM_LATENCY_MS: durationMsField(0),
  /** Fraction of deliveries answered 503 without storing anything. */
  SIM_FAILURE_RATE: rate,
  /** Fraction of deliveries stored and then answered 503 (a lost acknowledgement). */
  SIM_LOST_ACK_RATE: rate,
  /** `unavailable`: every API call gets 503; `hang`: calls get no answer. Changeable at /sim/faults. */
  SIM_OUTAGE: z.enum(['none', 'unavailable', 'hang']).default('none'),

  CHAIN_BLOCK_MS: durationMsField(12_000, 1),
  CHAIN_ROUND_BLOCKS: z.coerce.number().int().min(1).default(5_760),
  CHAIN_GENESIS_MS: durationMsField(0),
  TICKET_VALIDITY_ROUNDS: z.coerce.number().int().min(1).default(2),
  /** Redeem only once the ticket's params expired (the rand is revealed on chain). */
  SIM_WAIT_FOR_PARAMS_EXPIRY: flagField(true),
  /** Funds of a sender the ledger has not seen yet. */
  SIM_DEFAULT_DEPOSIT_WEI: wei('1000000000000000000000'),
  SIM_DEFAULT_RESERVE_WEI: wei('1000000000000000000000'),
  SIM_REDEEM_INTERVAL_MS: durationMsField(250, 10),
});

export type RedeemerSimConfig = z.infer<typeof RedeemerSimConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
