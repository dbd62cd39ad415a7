import type { DrainConfig } from '../config';
import { createCommandDriver } from './command-driver';
import type { OrchestratorDriver } from './orchestrator-driver';

/** The orchestrator driver the configuration names. */
export function createDriver(config: DrainConfig, baseEnv: Record<string, string>): OrchestratorDriver {
  if (config.REPLACE_COMMAND === undefined)
    throw new Error('REPLACE_COMMAND is required by the command driver');
  return createCommandDriver({
    command: config.REPLACE_COMMAND,
    timeoutMs: config.REPLACE_COMMAND_TIMEOUT_MS,
    readyUrl: config.NODE_READY_URL,
    baseEnv,
  });
}
