import { join } from 'node:path';
import { runnerGrants } from '@sandbox/protocol';
import type { StackConfig } from './config';
import type { ProcessSpec } from './managed-process';
import { httpReady } from './readiness';
import type { StackContext } from './stack-members';

/** Where the stack keeps the Node simulator's bootstrap secret (generated on first start). */
export function nodeSimBootstrapSecretPath(dataDir: string): string {
  return join(dataDir, 'node-sim', 'bootstrap-secret');
}

/** Where the simulator's restart-on-request files live (see restart-on-request/restart-files.ts). */
export function nodeSimRestartDir(dataDir: string): string {
  return join(dataDir, 'node-sim', 'restart');
}

/**
 * The Node simulator, standing in for Node (livepeer/node) on its default ports. The stack's
 * supervisor replaces it with a new process when the drain-controller asks (restart on request).
 */
export function nodeSimulator(config: StackConfig, context: StackContext): ProcessSpec {
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
      ...[
        '--runner-grants',
        runnerGrants(config.INSTANCE_SUBNET, config.APP_PORTS.split(',').map(Number), true).join(','),
      ],
      ...(config.NODE_SIM_PAID ? paidFlags(config, context) : []),
    ],
    cwd: context.root,
    env: context.baseEnv,
    isReady: () => httpReady(`http://127.0.0.1:${config.NODE_SIM_METRICS_PORT}/readyz`),
    banner: `http://127.0.0.1:${config.NODE_SIM_PORT}/ (bootstrap secret file: ${secretFile})`,
    restartOnRequest: { dir: nodeSimRestartDir(context.dataDir) },
  };
}

/** Paid mode: winners go durably to the outbox and from there to redemption-handoff. */
function paidFlags(config: StackConfig, context: StackContext): string[] {
  return [
    ...['--paid', '--wei-per-usd', config.NODE_SIM_WEI_PER_USD],
    ...['--handoff-url', `http://127.0.0.1:${config.REDEMPTION_HANDOFF_PORT}`],
    ...['--handoff-secret-file', context.secrets.handoffIntake],
    ...['--data-dir', join(context.dataDir, 'node-sim')],
  ];
}
