import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StackConfig } from './config';
import type { ProcessSpec } from './managed-process';
import { nodeSimBootstrapSecretPath, nodeSimRestartDir, nodeSimulator } from './node-sim-member';
import { httpReady, redisReady } from './readiness';
import { redisCommand } from './redis-data';
import type { StackSecrets } from './stack-secrets';

/** Paths and inherited environment the members are built from. */
export interface StackContext {
  root: string;
  /** The instance-manager's local driver needs root (network namespaces, iptables). */
  isRoot: boolean;
  dataDir: string;
  secrets: StackSecrets;
  nodePath: string;
  baseEnv: Record<string, string>;
}

/** Every member of the embedded stack, in start order (stopped in reverse). */
export function stackMembers(config: StackConfig, context: StackContext): ProcessSpec[] {
  const redisUrl = `redis://127.0.0.1:${config.REDIS_PORT}`;
  const { secrets } = context;
  // Every service of ours: the management tokens, and the Redis password (from its file).
  const ours = { ADMIN_TOKEN_FILE: secrets.adminToken, READ_TOKEN_FILE: secrets.readToken };
  const redis = { REDIS_URL: redisUrl, REDIS_PASSWORD_FILE: secrets.redisPassword };
  const service = (name: string, entry: string, port: number, env: Record<string, string>) =>
    serviceMember(config, context, { name, entry, port, env });
  return [
    redisMember(config, context),
    service('redeemer-sim', 'tools/redeemer-sim/src/main.ts', config.REDEEMER_SIM_PORT, {
      SIM_DB_PATH: join(context.dataDir, 'redeemer-sim', 'redeemer.sqlite'),
      REDEEMER_SECRET_FILE: context.secrets.redeemer,
    }),
    service('redemption-handoff', 'apps/redemption-handoff/src/main.ts', config.REDEMPTION_HANDOFF_PORT, {
      ...ours,
      ...redis,
      INTAKE_SECRET_FILE: context.secrets.handoffIntake,
      REDEEMER_URL: `http://127.0.0.1:${config.REDEEMER_SIM_PORT}`,
      REDEEMER_SECRET_FILE: context.secrets.redeemer,
      // The Node simulator's chain counts 12 s blocks from the Unix epoch.
      CHAIN_VIEW: 'clock',
      CHAIN_GENESIS_MS: '0',
    }),
    nodeSimulator(config, context),
    ...(context.isRoot
      ? [
          service('instance-manager', 'apps/instance-manager/src/main.ts', config.INSTANCE_MANAGER_PORT, {
            ...ours,
            ...redis,
            LOCAL_SUBNET: config.INSTANCE_SUBNET,
            LOCAL_PREFIX: config.INSTANCE_PREFIX,
            LOCAL_PROTECTED_PORTS: stackPorts(config).join(','),
            ...(config.INSTANCE_CAPACITY_CPUS === undefined
              ? {}
              : { LOCAL_CAPACITY_CPUS: String(config.INSTANCE_CAPACITY_CPUS) }),
            ...(config.INSTANCE_CAPACITY_MEMORY_MB === undefined
              ? {}
              : { LOCAL_CAPACITY_MEMORY_MB: String(config.INSTANCE_CAPACITY_MEMORY_MB) }),
          }),
        ]
      : []),
    service('adapter', 'apps/adapter/src/main.ts', config.ADAPTER_PORT, {
      ...ours,
      ...redis,
      NODE_URL: `http://127.0.0.1:${config.NODE_SIM_PORT}`,
      BOOTSTRAP_SECRET_FILE: nodeSimBootstrapSecretPath(context.dataDir),
    }),
    service('drain-controller', 'apps/drain-controller/src/main.ts', config.DRAIN_CONTROLLER_PORT, {
      ...ours,
      ...redis,
      // Really replaces the simulator: the stack's supervisor starts a new process, as a Node restart would.
      REPLACE_COMMAND: [
        `'${context.nodePath}' --import tsx`,
        `'${join(context.root, 'tools/stack/src/restart-on-request/request-restart.ts')}'`,
        `'${nodeSimRestartDir(context.dataDir)}' "$DRAIN_ID" 60000`,
      ].join(' '),
      NODE_READY_URL: `http://127.0.0.1:${config.NODE_SIM_METRICS_PORT}/readyz`,
    }),
    service('dashboard', 'apps/dashboard/src/main.ts', config.DASHBOARD_PORT, {
      ...ours,
      ...redis,
      DASHBOARD_WRITABLE: String(config.DASHBOARD_WRITABLE),
    }),
    ...(context.isRoot && config.NODE_SIM_PAID
      ? [evalResponderApp(config, context, secrets.adminToken)]
      : []),
    service('verifier', 'apps/verifier/src/main.ts', config.VERIFIER_PORT, {
      ...ours,
      ...redis,
      NODE_URL: `http://127.0.0.1:${config.NODE_SIM_PORT}`,
      SIGNER_URL: `http://127.0.0.1:${config.NODE_SIM_PORT}`,
      SIGNER_SECRET_FILE: context.secrets.verifierSigner,
      SIGNING_KEY_FILE: context.secrets.verifierKey,
      SCHEDULE_APPS: 'eval-responder',
      SCHEDULE_EVERY_MS: String(VERIFIER_SCHEDULE_MS),
      SCHEDULE_JITTER_MS: '10000',
      RESULT_TTL_MS: String(3 * VERIFIER_SCHEDULE_MS),
    }),
  ];
}

/** One of our services: `node --import tsx <entry>` on loopback, ready once `/readyz` answers 200. */
function serviceMember(
  config: StackConfig,
  context: StackContext,
  member: { name: string; entry: string; port: number; env: Record<string, string> },
): ProcessSpec {
  const { secrets } = context;
  const { name, entry, port, env } = member;
  const tokensNote = ` (admin token file: ${secrets.adminToken}, read token file: ${secrets.readToken})`;
  return {
    name,
    command: context.nodePath,
    args: ['--import', 'tsx', entry],
    cwd: context.root,
    env: {
      ...context.baseEnv,
      ...{ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: config.LOG_LEVEL },
      // No load balancer routes to the embedded stack: close listeners as soon as readiness is off.
      DRAIN_DELAY_MS: '0',
      // One replica of each: a restarted member keeps its lease name and takes its lease back at once.
      LEASE_HOLDER_ID: `stack-${name}`,
      ...env,
    },
    isReady: () => httpReady(`http://127.0.0.1:${port}/readyz`),
    banner: `http://127.0.0.1:${port}/${'ADMIN_TOKEN_FILE' in env ? tokensNote : ''}`,
  };
}

/**
 * Redis keeps its data under the repository's data folder, with AOF fsynced on every write and no
 * eviction, as the services require, and readable by its own user only.
 */
export function redisMember(config: StackConfig, context: StackContext): ProcessSpec {
  const redisUrl = `redis://127.0.0.1:${config.REDIS_PORT}`;
  return {
    name: 'redis',
    ...redisCommand([
      // The configuration file first (redis-server's rule): it holds `requirepass`.
      context.secrets.redisConfig,
      ...['--port', String(config.REDIS_PORT), '--bind', '127.0.0.1', '--protected-mode', 'yes'],
      ...['--dir', join(context.dataDir, 'redis'), '--save', ''],
      ...['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction'],
      ...['--loglevel', 'warning'],
    ]),
    cwd: context.root,
    env: context.baseEnv,
    isReady: () => redisReady(config.REDIS_PORT, context.secrets.redisPassword),
    banner: redisUrl,
  };
}

/** The stack evaluates its responder every two minutes (a deployment would use its default, 15). */
const VERIFIER_SCHEDULE_MS = 120_000;

/**
 * In paid mode (as root): builds the eval-responder image and declares the app to instance-manager
 * (ready once declared), so the verifier has a target to pay for.
 */
function evalResponderApp(config: StackConfig, context: StackContext, adminTokenFile: string): ProcessSpec {
  const manager = `http://127.0.0.1:${config.INSTANCE_MANAGER_PORT}`;
  return {
    name: 'eval-responder',
    command: context.nodePath,
    args: [
      ...['--import', 'tsx', 'tools/stack/src/declare-eval-responder.ts', manager, adminTokenFile],
      // Priced so that, at the simulator's ticket face value, every run pays with many tickets and
      // winners reach redemption-handoff within one evaluation.
      '3600',
    ],
    cwd: context.root,
    env: context.baseEnv,
    isReady: () => declared(`${manager}/v1/apps/eval-responder`, adminTokenFile),
    readyTimeoutMs: 300_000,
    banner: `${manager}/v1/apps/eval-responder`,
  };
}

/** True once instance-manager knows the app (asked with the stack's token). */
async function declared(url: string, tokenFile: string): Promise<boolean> {
  const token = (await readFile(tokenFile, 'utf8')).trim();
  const reply = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(1_000),
  });
  await reply.body?.cancel();
  return reply.status === 200;
}

/** Every port a stack member listens on: instances must never reach any of them. */
function stackPorts(config: StackConfig): number[] {
  return Object.entries(config)
    .filter(([key]) => key.endsWith('_PORT'))
    .map(([, value]) => Number(value));
}
