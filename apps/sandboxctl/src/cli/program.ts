import { Command, CommanderError, Option } from 'commander';
import { COMMAND_MODULES } from '../commands/registry';
import { OUTPUT_FORMATS } from '../output/printer';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from './errors';
import { collect, durationArgument } from './options';
import { CliRuntime, type CliIo, type CommandModule } from './runtime';

/** The version printed by `--version`; the services report their own in `status`. */
export const CLI_VERSION = '0.1.0';

/** The whole command tree, with every module's commands. */
export function buildProgram(io: CliIo, modules: readonly CommandModule[] = COMMAND_MODULES): Command {
  const services = new Map(modules.flatMap((module) => module.services ?? []).map((svc) => [svc.name, svc]));
  const runtime = new CliRuntime(io, [...services.values()], modules);
  const program = new Command('sandboxctl')
    .description('Operate a Sandbox Runtime machine: apps, instances, runners, sessions and tickets.')
    .version(CLI_VERSION)
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('--context <name>', 'context of the config file to use (default: its currentContext)')
    .option(
      '--server <service=url>',
      'endpoint of one service, e.g. instance-manager=http://host:7101 (repeatable)',
      collect,
    )
    .addOption(
      new Option('--request-timeout <duration>', 'timeout of each HTTP request')
        .argParser(durationArgument)
        .default(10_000, '10s'),
    )
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    })
    .exitOverride();
  program.addHelpText(
    'after',
    '\nConfiguration: $SANDBOXCTL_CONFIG, else $XDG_CONFIG_HOME/sandboxctl/config.yaml, else ' +
      '~/.config/sandboxctl/config.yaml.\nEach service: SANDBOXCTL_<SERVICE>_URL and SANDBOXCTL_<SERVICE>_TOKEN_FILE ' +
      '(e.g. SANDBOXCTL_INSTANCE_MANAGER_URL).',
  );
  for (const module of modules) module.register(program, runtime);
  // Subcommands inherit the output settings and the usage-error behaviour.
  const inherit = (command: Command) => {
    for (const child of command.commands) {
      child.exitOverride().showHelpAfterError('(run with --help for usage)');
      child.configureOutput(program.configureOutput());
      inherit(child);
    }
  };
  inherit(program);
  return program;
}

/** Runs one command line; resolves the exit code (0 success, 1 failure, 2 usage error). Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof CliError) {
      io.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}
