import { ServiceError } from '../cli/errors';
import type { CommandModule, CommandSession } from '../cli/runtime';
import { durationArgument } from '../cli/options';
import { instanceManagerRoutes as im } from '@sandbox/protocol';
import { instanceManagerService } from '../client/services';
import { appColumns, declaredInstances } from './app-columns';
import { registerApply, registerDiff } from './apps-apply.command';
import { waitUntil } from './wait';

async function deleteApp(session: CommandSession, name: string, options: { wait: boolean; timeout: number }) {
  const { client, printer, io } = session;
  await client.call(im.deleteApp, { params: { app: name } });
  printer.line(`app/${name} deleting`);
  if (!options.wait) return;
  await waitUntil(io, {
    timeoutMs: options.timeout,
    what: `app/${name} to be removed`,
    check: async () => {
      try {
        const app = await client.call(im.getApp, { params: { app: name } });
        const left =
          app.instances.starting + app.instances.ready + app.instances.taken + app.instances.withdrawing;
        return { done: false, progress: `${left} instance${left === 1 ? '' : 's'} left` };
      } catch (error) {
        if (error instanceof ServiceError && error.status === 404) return { done: true, progress: '' };
        throw error;
      }
    },
    report: (progress) => progress && printer.note(`app/${name}: ${progress}`),
    retrying: (reason) => printer.note(`${reason}; retrying until the timeout`),
  });
  printer.line(`app/${name} deleted`);
}

/** `apps apply|diff|list|get|delete`: app specs on instance-manager. */
export const appsCommands: CommandModule = {
  services: [instanceManagerService],
  register(program, runtime) {
    const apps = program.command('apps').description('Declare, inspect and delete apps (instance-manager)');
    registerApply(apps, runtime);
    registerDiff(apps, runtime);
    apps
      .command('list')
      .description('List every app with its instance counts')
      .addHelpText('after', '\nExamples:\n  sandboxctl apps list\n  sandboxctl apps list -o yaml')
      .action(async (_options, command) => {
        const session = runtime.session(command);
        const body = await session.client.call(im.listApps, {});
        session.printer.list(body, body.apps, appColumns(runtime.io.now()), 'No apps.');
      });
    apps
      .command('get')
      .description('Show one app: spec, status and instance counts')
      .argument('<name>', 'app name')
      .addHelpText('after', '\nExamples:\n  sandboxctl apps get echo\n  sandboxctl apps get echo -o yaml')
      .action(async (name: string, _options, command) => {
        const session = runtime.session(command);
        const app = await session.client.call(im.getApp, { params: { app: name } });
        session.printer.list(app, [app], appColumns(runtime.io.now()));
      });
    apps
      .command('delete')
      .description('Delete an app: its instances are withdrawn gracefully, then it is removed')
      .argument('<name>', 'app name')
      .option('--wait', 'wait until the app and every instance are gone', false)
      .option('--timeout <duration>', 'how long --wait waits', durationArgument, 600_000)
      .addHelpText('after', '\nExamples:\n  sandboxctl apps delete echo --wait')
      .action(async (name: string, options: { wait: boolean; timeout: number }, command) => {
        await deleteApp(runtime.session(command), name, options);
      });
  },
  async status(session) {
    const { apps } = await session.client.call(im.listApps, {});
    const short = apps.filter((app) => app.instances.ready < declaredInstances(app.spec));
    return [
      {
        label: 'Apps',
        value:
          `${apps.length} declared` +
          (short.length > 0 ? `, below their warm pool: ${short.map((app) => app.name).join(', ')}` : ''),
        data: { apps: apps.length, belowDeclared: short.map((app) => app.name) },
      },
    ];
  },
};
