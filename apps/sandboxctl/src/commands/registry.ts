import type { CommandModule } from '../cli/runtime';
import { appsCommands } from './apps.commands';
import { completionCommand } from './completion.command';
import { drainCommands } from './drain.commands';
import { configCommands } from './config.commands';
import { instancesCommands } from './instances.commands';
import { runnersCommands } from './runners.commands';
import { statusCommand } from './status.command';
import { ticketsCommands } from './tickets.commands';
import { verifyCommands } from './verify.commands';

/**
 * Every command, one module per service (plus status, config and completion). A new service's commands
 * are one more module here: it declares the service (name, default URL) and registers its commands.
 */
export const COMMAND_MODULES: readonly CommandModule[] = [
  statusCommand,
  appsCommands,
  instancesCommands,
  runnersCommands,
  ticketsCommands,
  drainCommands,
  verifyCommands,
  configCommands,
  completionCommand,
];
