import { leaseEnvFields } from '@sandbox/lease';
import { HttpUrlSchema, PositiveGoDurationMsSchema } from '@sandbox/protocol';
import { baseEnvSchema, durationMsField, secretFilePathField } from '@sandbox/service-kit';
import { z } from 'zod';

/** Node's runner-facing base URL: absolute http(s), no user info, query or fragment. */
const NodeUrlSchema = HttpUrlSchema.refine(
  (value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.search === '' && !value.includes('#');
  },
  { message: 'must not contain user info, a query or a fragment' },
);

export const AdapterConfigSchema = baseEnvSchema({ port: 7102, shutdownTimeoutMs: 15_000 }).extend({
  /** Prefix of the adapter's own Redis keys (registrations, credentials, drain mode). Persistent. */
  STATE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-][A-Za-z0-9:_-]*$/, { message: 'must be letters, digits, ":", "_" or "-"' })
    .default('adapter'),
  /** Where registrations go (`POST <NODE_URL>/runners/heartbeat`); later calls use Node's `orchestrator`. */
  NODE_URL: NodeUrlSchema.default('http://127.0.0.1:8935'),
  /** Node's bootstrap credential: a file whose exact bytes are the secret (no trailing newline). */
  BOOTSTRAP_SECRET_FILE: secretFilePathField(),
  /** Heartbeat interval used until Node has answered with its own (Go duration). */
  DEFAULT_HEARTBEAT_INTERVAL: z.string().default('5s').pipe(PositiveGoDurationMsSchema),
  /** Longest request timeout; the effective one is 60 % of Node's interval when that is shorter. */
  REQUEST_TIMEOUT_MS: durationMsField(4_000, 100),
  /** Reconnect an O2R long-poll after this long without a segment (Node sends keepalives every 10 s). */
  O2R_KEEPALIVE_TIMEOUT_MS: durationMsField(25_000, 1_000),
  /**
   * O2R long-polls at once. Node serves them from the same 256 streaming slots as app traffic, so
   * the default (64) leaves at least 192 slots to clients even with Node's maximum of 256 runners;
   * runners beyond it learn their sessions from heartbeats, at most one interval late.
   */
  O2R_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(0).max(10_000).default(64),
  /** Calls to Node in flight at once; below Node's 64 control-request slots. */
  MAX_CONCURRENT_REQUESTS: z.coerce.number().int().min(1).max(64).default(32),
  /** How long an adapter command may take to show at Node before its job fails and is retried. */
  COMMAND_TIMEOUT_MS: durationMsField(120_000, 1_000),
  /** One active replica: LEASE_TTL_MS, LEASE_RENEW_DEADLINE_MS, LEASE_RETRY_PERIOD_MS, LEASE_HOLDER_ID. */
  ...leaseEnvFields(),
});

export type AdapterConfig = z.infer<typeof AdapterConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
