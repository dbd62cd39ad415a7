import { InstanceStateSchema, type InstanceState } from '@sandbox/protocol';
import { Option } from 'commander';
import type { CommandModule } from '../cli/runtime';
import { instanceManagerRoutes as im } from '@sandbox/protocol';
import { instanceManagerService } from '../client/services';
import { instanceColumns } from './app-columns';

/** `instances list`: the sandboxed instances instance-manager runs. */
export const instancesCommands: CommandModule = {
  services: [instanceManagerService],
  register(program, runtime) {
    const instances = program
      .command('instances')
      .description('Inspect sandboxed instances (instance-manager)');
    instances
      .command('list')
      .description('List instances that are not gone (or recently gone ones with --state gone)')
      .option('--app <name>', 'only this app')
      .addOption(new Option('--state <state>', 'only this state').choices(InstanceStateSchema.options))
      .addHelpText(
        'after',
        '\nExamples:\n  sandboxctl instances list --app echo\n  sandboxctl instances list --state gone -o wide',
      )
      .action(async (options: { app?: string; state?: InstanceState }, command) => {
        const session = runtime.session(command);
        const body = await session.client.call(im.listInstances, {
          query: { app: options.app, state: options.state },
        });
        session.printer.list(body, body.instances, instanceColumns(runtime.io.now()), 'No instances.');
      });
  },
};
