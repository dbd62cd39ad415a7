import { leaseEnvFields } from '@sandbox/lease';
import { baseEnvSchema, durationMsField, secretFilePathField } from '@sandbox/service-kit';
import { z } from 'zod';

const count = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** 12 s L1 blocks, 5760-block rounds: Livepeer's round length, and node-sim's simulated chain. */
const BLOCK_MS = 12_000;
const ROUND_BLOCKS = 5_760;

export const HandoffConfigSchema = baseEnvSchema({ port: 7104, shutdownTimeoutMs: 20_000 })
  .extend({
    /** Prefix of the ticket records. Persistent: changing it forgets every ticket (and its money). */
    KEY_PREFIX: z
      .string()
      .regex(/^[a-z0-9:_-]{1,40}$/)
      .default('sandbox:rh'),
    /** How long start-up waits for Redis before giving up (exit 1). */
    REDIS_STARTUP_TIMEOUT_MS: durationMsField(30_000, 1_000),

    /** File holding the credential Node presents as `Authorization: Bearer <credential>`. Secret. */
    INTAKE_SECRET_FILE: secretFilePathField(),
    /** Refuse tickets paying another recipient than this orchestrator address (lowercase 0x hex). */
    RECIPIENT_ADDRESS: z
      .string()
      .regex(/^0x[0-9a-f]{40}$/, { message: 'must be a lowercase 0x address' })
      .optional(),
    /**
     * Curve that checks ticket signatures: `auto` takes libsecp256k1 (native, about 20 times faster) where
     * its prebuilt binary loads and the pure-JS noble curve elsewhere; `libsecp256k1` refuses to start
     * without it; `noble` always uses the pure-JS curve.
     */
    SIGNATURE_BACKEND: z.enum(['auto', 'libsecp256k1', 'noble']).default('auto'),
    /** noble only: public keys of this many payers are remembered to check their signatures faster. */
    SIGNER_CACHE_SIZE: count(64, 0, 10_000),

    /**
     * `none`: no round view (nothing is refused as expired); `clock`: rounds derived from the time, from
     * `CHAIN_GENESIS_MS` on (as node-sim's simulated chain does).
     */
    CHAIN_VIEW: z.enum(['clock', 'none']).default('none'),
    CHAIN_BLOCK_MS: durationMsField(BLOCK_MS, 1),
    CHAIN_ROUND_BLOCKS: count(ROUND_BLOCKS, 1, 1_000_000),
    /** The instant of block 0 (ms since the epoch); required with `CHAIN_VIEW=clock`. */
    CHAIN_GENESIS_MS: z.coerce.number().int().min(0).optional(),
    /** Rounds a ticket stays redeemable from its creation round (the TicketBroker's `ticketValidityPeriod`). */
    TICKET_VALIDITY_ROUNDS: count(2, 1, 1_000),
    /** With `CHAIN_VIEW=none`: how long after receipt a ticket counts as redeemable. */
    FALLBACK_VALIDITY_MS: durationMsField(2 * ROUND_BLOCKS * BLOCK_MS, 1_000),

    /** Base URL of the redemption service. */
    REDEEMER_URL: z.url({ protocol: /^https?$/ }),
    /** File holding the credential sent to the redemption service. Secret. */
    REDEEMER_SECRET_FILE: secretFilePathField(),
    DELIVERY_TIMEOUT_MS: durationMsField(10_000, 100),
    /**
     * Deliveries in flight at once (and keep-alive connections to the redeemer). Each one waits on two
     * Redis fsyncs (AOF `always`) and the redeemer's own durable write, so this bounds the rate:
     * measured on 2 cores, 64 delivers 25-50 % more per second than 32, at less CPU per ticket.
     */
    DELIVERY_CONCURRENCY: count(64, 1, 256),
    /** At most this many deliveries start per window, so a recovering redeemer is not flooded. */
    DELIVERY_RATE_MAX: count(200, 1, 1_000_000),
    DELIVERY_RATE_WINDOW_MS: durationMsField(1_000, 10),
    DELIVERY_BACKOFF_BASE_MS: durationMsField(1_000, 10),
    DELIVERY_BACKOFF_CAP_MS: durationMsField(300_000, 10),
    /** BullMQ job lock; a delivery of a crashed process is retried once it lapses. */
    DELIVERY_LOCK_MS: durationMsField(30_000, 500),
    DELIVERY_STALLED_INTERVAL_MS: durationMsField(30_000, 200),

    OUTCOME_POLL_MS: durationMsField(2_000, 10),
    OUTCOME_PAGE_SIZE: count(500, 1, 1_000),
    /** Records are checked against jobs at start-up and then this often. */
    RECONCILE_INTERVAL_MS: durationMsField(300_000, 1_000),
    DURABILITY_CHECK_MS: durationMsField(5_000, 100),
    /** Terminal records are deleted this long after their outcome; 0 keeps them forever. */
    TERMINAL_RETENTION_MS: durationMsField(30 * 24 * 3_600_000),
    /** One active delivery: LEASE_TTL_MS, LEASE_RENEW_DEADLINE_MS, LEASE_RETRY_PERIOD_MS, LEASE_HOLDER_ID. */
    ...leaseEnvFields(),
  })
  .superRefine((config, ctx) => {
    if (config.CHAIN_VIEW === 'clock' && config.CHAIN_GENESIS_MS === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['CHAIN_GENESIS_MS'],
        message: 'is required with CHAIN_VIEW=clock',
      });
  });

export type HandoffConfig = z.infer<typeof HandoffConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
