import { join } from 'node:path';
import type { StackConfig } from './config';
import type { ProcessSpec } from './managed-process';
import { httpReady, redisReady } from './readiness';

/** Paths and inherited environment the members are built from. */
export interface StackContext {
  root: string;
  dataDir: string;
  nodePath: string;
  baseEnv: Record<string, string>;
}

/**
 * Every member of the embedded stack, in start order (stopped in reverse). Redis keeps its data under
 * the repository's data folder, with AOF fsynced on every write and no eviction, as the services require.
 */
export function stackMembers(config: StackConfig, context: StackContext): ProcessSpec[] {
  const redisUrl = `redis://127.0.0.1:${config.REDIS_PORT}`;
  const service = (name: string, entry: string, port: number, env: Record<string, string>): ProcessSpec => ({
    name,
    command: context.nodePath,
    args: ['--import', 'tsx', entry],
    cwd: context.root,
    env: { ...context.baseEnv, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: config.LOG_LEVEL, ...env },
    isReady: () => httpReady(`http://127.0.0.1:${port}/readyz`),
    banner: `http://127.0.0.1:${port}/`,
  });
  return [
    {
      name: 'redis',
      command: 'redis-server',
      args: [
        ...['--port', String(config.REDIS_PORT), '--bind', '127.0.0.1', '--protected-mode', 'yes'],
        ...['--dir', join(context.dataDir, 'redis'), '--save', ''],
        ...['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction'],
      ],
      cwd: context.root,
      env: context.baseEnv,
      isReady: () => redisReady(config.REDIS_PORT),
      banner: redisUrl,
    },
    nodeSimulator(config, context),
    service('dashboard', 'apps/dashboard/src/main.ts', config.DASHBOARD_PORT, {
      REDIS_URL: redisUrl,
      DASHBOARD_WRITABLE: String(config.DASHBOARD_WRITABLE),
    }),
  ];
}

/** Where the stack keeps the Node simulator's bootstrap secret (generated on first start). */
export function nodeSimBootstrapSecretPath(dataDir: string): string {
  return join(dataDir, 'node-sim', 'bootstrap-secret');
}

/** The Node simulator, standing in for Node (livepeer/node) on its default ports. */
function nodeSimulator(config: StackConfig, context: StackContext): ProcessSpec {
  const secretFile = nodeSimBootstrapSecretPath(context.dataDir);
  return {
    name: 'node-sim',
    command: context.nodePath,
    args: [
      ...['--import', 'tsx', 'tools/node-sim/src/main.ts'],
      ...[
        '--listen',
        `127.0.0.1:${config.NODE_SIM_PORT}`,
        '--metrics-listen',
        `127.0.0.1:${config.NODE_SIM_METRICS_PORT}`,
      ],
      ...['--bootstrap-secret-file', secretFile, '--generate-bootstrap-secret'],
    ],
    cwd: context.root,
    env: context.baseEnv,
    isReady: () => httpReady(`http://127.0.0.1:${config.NODE_SIM_METRICS_PORT}/readyz`),
    banner: `http://127.0.0.1:${config.NODE_SIM_PORT}/ (bootstrap secret file: ${secretFile})`,
  };
}
