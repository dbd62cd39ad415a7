import { leaseEnvFields } from '@sandbox/lease';
import { baseEnvSchema, durationMsField, flagField } from '@sandbox/service-kit';
import { z } from 'zod';

const splitList = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

/** A comma-separated list, each item parsed with `item`. */
const csv = <T extends z.ZodType>(item: T, fallback = '') =>
  z.preprocess((value) => splitList(typeof value === 'string' ? value : fallback), z.array(item));

const labelMap = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const pairs = splitList(text).map((entry) => entry.split('='));
      if (pairs.some((pair) => pair.length !== 2 || pair[0] === '' || pair[1] === '')) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated key=value pairs' });
        return z.NEVER;
      }
      return Object.fromEntries(pairs) as Record<string, string>;
    });

/** Ports of our services, Redis and the Node simulator on this host: refused from every local instance. */
const DEFAULT_PROTECTED_PORTS = '6379,6390,7100,7101,7102,7103,7104,7105,7106,8935,8936';

export const InstanceManagerConfigSchema = baseEnvSchema({ port: 7101, shutdownTimeoutMs: 20_000 }).extend({
  /** Prefix of our own Redis keys (specs, instance records). Persistent: changing it forgets every app. */
  KEY_PREFIX: z
    .string()
    .regex(/^[a-z0-9:_-]{1,40}$/)
    .default('sandbox:im'),

  DRIVER: z.enum(['local', 'kubernetes']).default('local'),
  /** Names host objects of the local driver. Persistent: changing it orphans running instances. */
  LOCAL_PREFIX: z
    .string()
    .regex(/^[a-z]{2,4}$/)
    .default('sbx'),
  /** One /30 per instance; a /22 holds 256, Node's runner limit, and keeps the grant list short. */
  LOCAL_SUBNET: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/)
    .default('10.213.0.0/22'),
  LOCAL_PROTECTED_PORTS: csv(z.coerce.number().int().min(1).max(65_535), DEFAULT_PROTECTED_PORTS),
  /** `auto`: the cached systrap build when it passes a canary, else Debian's runsc. */
  LOCAL_RUNTIME: z.enum(['auto', 'systrap', 'debian']).default('auto'),
  /** Build the pinned runsc at start-up when it is not cached (needs `go`, about a minute). */
  LOCAL_RUNSC_BUILD: flagField(false),
  LOCAL_DNS_SERVERS: csv(z.ipv4()),
  /** CPUs the local instances may request in total; unset: the host's CPUs (no overcommit). */
  LOCAL_CAPACITY_CPUS: z.coerce.number().positive().max(4096).optional(),
  /** MiB of memory the local instances may request in total; unset: the host's memory. */
  LOCAL_CAPACITY_MEMORY_MB: z.coerce.number().int().positive().optional(),

  KUBE_NAMESPACE: z.string().min(1).default('sandbox-apps'),
  KUBE_RUNTIME_CLASS: z.string().min(1).default('gvisor'),
  KUBECONFIG_PATH: z.string().min(1).optional(),
  KUBE_ORCHESTRATOR_NAMESPACE_LABELS: labelMap('kubernetes.io/metadata.name=sandbox-system'),
  KUBE_ORCHESTRATOR_POD_LABELS: labelMap('app.kubernetes.io/name=livepeer-node'),
  /** Pod and service CIDRs and every node address: never reachable from app egress. */
  KUBE_CLUSTER_CIDRS: csv(z.string().min(1), '10.42.0.0/16,10.43.0.0/16'),
  KUBE_DNS_SERVERS: csv(z.ipv4()),

  START_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  READY_TIMEOUT_MS: durationMsField(60_000, 1_000),
  READY_PROBE_INTERVAL_MS: z.coerce.number().int().min(100).max(250).default(100),
  /** How long the adapter may take to answer an immediate `instance-withdraw`. */
  WITHDRAW_TIMEOUT_MS: durationMsField(60_000, 1_000),
  /** How long a graceful withdrawal may wait for sessions to end. */
  WITHDRAW_GRACE_MS: durationMsField(12 * 3_600_000, 1_000),
  RESYNC_INTERVAL_MS: durationMsField(5_000, 100),
  /** One active replica: LEASE_TTL_MS, LEASE_RENEW_DEADLINE_MS, LEASE_RETRY_PERIOD_MS, LEASE_HOLDER_ID. */
  ...leaseEnvFields(),
  GONE_RETENTION_MS: durationMsField(24 * 3_600_000, 1_000),
});

export type InstanceManagerConfig = z.infer<typeof InstanceManagerConfigSchema>;

/** The environment, read once by main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
