import { leaseEnvFields } from '@sandbox/lease';
import { MAX_QUIET_PERIOD_MS, drainDurationSchema, DrainWindowSchema } from '@sandbox/protocol';
import { baseEnvSchema, durationMsField } from '@sandbox/service-kit';
import { z } from 'zod';

export const DrainConfigSchema = baseEnvSchema({ port: 7103 })
  .extend({
    /** Prefix of the drain records. Persistent: changing it forgets every drain, an active one too. */
    KEY_PREFIX: z
      .string()
      .regex(/^[a-z0-9:_-]{1,40}$/)
      .default('sandbox:drain'),
    REDIS_STARTUP_TIMEOUT_MS: durationMsField(30_000, 1_000),

    /**
     * The adapter's STATE_PREFIX: its sessions view (`<prefix>:sessions-view`) is where the sessions
     * Node reports on our runners are read, in the same Redis. Must equal the adapter's setting.
     */
    ADAPTER_STATE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-][A-Za-z0-9:_-]*$/, { message: 'must be letters, digits, ":", "_" or "-"' })
      .default('adapter'),
    /**
     * A sessions view observed longer ago than this (by Redis's clock) is stale: unknown. Above the
     * adapter's write interval (1 s) with room for a slow write and clock skew between the adapter and
     * Redis; below that, a drain would wait on views that are fine.
     */
    SESSIONS_VIEW_MAX_AGE_MS: durationMsField(5_000, 1_000),
    /** Window of a drain that names none (Go or ISO 8601 duration, at most 12 h). */
    DEFAULT_WINDOW: DrainWindowSchema.default(6 * 3_600_000),
    /** Quiet period of a drain that names none. */
    DEFAULT_QUIET_PERIOD: drainDurationSchema(0, MAX_QUIET_PERIOD_MS).default(30_000),
    /**
     * A withdraw-all or cancel-sessions still not completed by the adapter this long after its phase
     * began fails the drain (which then resumes). Above the adapter's own COMMAND_TIMEOUT_MS, so its
     * retries get their turn.
     */
    ADAPTER_COMMAND_TIMEOUT_MS: durationMsField(600_000, 100),
    /**
     * A resume still not completed by the adapter this long after `resuming` began ends the drain
     * `failed` (the resume stays queued for the adapter). 30 min is well past an adapter restart or a
     * rescheduled pod, a Redis failover and several of the adapter's own COMMAND_TIMEOUT_MS retries,
     * so a drain that would still have resumed is not cut short; an adapter that stays away no longer
     * holds the drain, and the one-drain lock, without end.
     */
    RESUME_TIMEOUT_MS: durationMsField(1_800_000, 100),
    /** How often a waiting step looks again (sessions, adapter commands, the new Node). */
    POLL_MS: durationMsField(1_000, 10),
    /** The new Node must answer within this long after the replacement, or the drain fails (and resumes). */
    NODE_READY_TIMEOUT_MS: durationMsField(600_000, 100),
    /** Step jobs are locked this long; a step of a crashed process is taken over once it lapses. */
    STEP_LOCK_MS: durationMsField(10_000, 500),
    STEP_STALLED_INTERVAL_MS: durationMsField(5_000, 100),

    ORCHESTRATOR_DRIVER: z.enum(['command', 'kubernetes']).default('command'),
    /**
     * `command` driver: a shell command that replaces Node and returns once the old process is gone
     * (e.g. `systemctl restart livepeer-node`). It gets DRAIN_ID, DRAIN_TARGET_IMAGE (empty for a
     * restart) and must replace Node at most once per DRAIN_ID: after a crash it may run again.
     */
    REPLACE_COMMAND: z.string().min(1).optional(),
    REPLACE_COMMAND_TIMEOUT_MS: durationMsField(300_000, 100),
    /** `command` driver: answers 2xx once the (new) Node serves, e.g. its metrics listener's `/readyz`. */
    NODE_READY_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8936/readyz'),

    /** `kubernetes` driver: the orchestrator's Deployment (the Role allows get and patch on it only). */
    KUBE_NAMESPACE: z.string().min(1).default('sandbox-system'),
    KUBE_DEPLOYMENT: z.string().min(1).default('livepeer-node'),
    /** The container whose image an `{ image }` target replaces. */
    KUBE_CONTAINER: z.string().min(1).default('livepeer-node'),
    /** Without it: the pod's service account in a cluster, else KUBECONFIG or ~/.kube/config. */
    KUBECONFIG_PATH: z.string().min(1).optional(),
    /** One active step worker: LEASE_TTL_MS, LEASE_RENEW_DEADLINE_MS, LEASE_RETRY_PERIOD_MS, LEASE_HOLDER_ID. */
    ...leaseEnvFields(),
  })
  .superRefine((config, context) => {
    if (config.ORCHESTRATOR_DRIVER === 'command' && config.REPLACE_COMMAND === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['REPLACE_COMMAND'],
        message: 'is required with ORCHESTRATOR_DRIVER=command',
      });
    }
  });

export type DrainConfig = z.infer<typeof DrainConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
