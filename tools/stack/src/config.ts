import { z } from 'zod';

const port = (fallback: number) => z.coerce.number().int().min(1).max(65_535).default(fallback);

/** Ports of the embedded stack (`npm start`); each can be overridden from the environment. */
export const StackConfigSchema = z.object({
  DASHBOARD_PORT: port(7100),
  INSTANCE_MANAGER_PORT: port(7101),
  ADAPTER_PORT: port(7102),
  DRAIN_CONTROLLER_PORT: port(7103),
  REDEMPTION_HANDOFF_PORT: port(7104),
  VERIFIER_PORT: port(7105),
  REDEEMER_SIM_PORT: port(7106),
  REDIS_PORT: port(6390),
  NODE_SIM_PORT: port(8935),
  NODE_SIM_METRICS_PORT: port(8936),
  /** Address range of the local driver's instances (one /30 each); Node is granted each instance address. */
  INSTANCE_SUBNET: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/)
    .default('10.213.0.0/22'),
  /** Names the local driver's host objects (namespaces, chains, containers). Persistent: see instance-manager. */
  INSTANCE_PREFIX: z
    .string()
    .regex(/^[a-z]{2,4}$/)
    .default('sbx'),
  /** CPUs and MiB the local instances may request in total (instance-manager's LOCAL_CAPACITY_*); unset: the host's. */
  INSTANCE_CAPACITY_CPUS: z.coerce.number().positive().max(4096).optional(),
  INSTANCE_CAPACITY_MEMORY_MB: z.coerce.number().int().positive().optional(),
  /** App ports Node may dial on instance addresses (Node dials private addresses only when granted). */
  APP_PORTS: z
    .string()
    .regex(/^\d{1,5}(,\d{1,5})*$/)
    .default('8080'),
  /** Where the stack keeps Redis data and generated secrets, relative to the repository. */
  STACK_DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /**
   * Runs the Node simulator in paid mode: clients pay with tickets, and winners flow through its outbox
   * to redemption-handoff and on to redeemer-sim.
   */
  NODE_SIM_PAID: z.stringbool().default(false),
  /** Wei per USD of the simulated price feed, in paid mode. */
  NODE_SIM_WEI_PER_USD: z
    .string()
    .regex(/^[1-9][0-9]*$/)
    .default('400000000000000'),
  /** Starts the dashboard with write actions (retry, clean, promote) enabled. */
  DASHBOARD_WRITABLE: z.stringbool().default(false),
  /**
   * Leaves the app instances running when the stack stops (`--keep-instances` does the same); the next
   * start's instance-manager adopts them. By default the stack removes them after stopping its members.
   */
  STACK_KEEP_INSTANCES: z.stringbool().default(false),
  /** `pretty`: readable coloured lines; `plain`: each member's lines as printed (JSON). `auto`: pretty on a terminal. */
  STACK_CONSOLE: z.enum(['auto', 'pretty', 'plain']).default('auto'),
});

export type StackConfig = z.infer<typeof StackConfigSchema>;

/** The environment the stack's children inherit (PATH, HOME, locale), without our own settings. */
export function inheritedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_OPTIONS', 'CI'];
  return Object.fromEntries(keep.flatMap((key) => (env[key] === undefined ? [] : [[key, env[key]]])));
}

/** Reads the whole process environment once, for main.ts. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
