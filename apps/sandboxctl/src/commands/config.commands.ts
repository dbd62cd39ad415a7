import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseDocument } from 'yaml';
import { CliError, UsageError } from '../cli/errors';
import type { CommandModule } from '../cli/runtime';
import { configPath, readConfigFile } from '../config';

/** `config view|use-context`: which endpoints and token files are in effect. */
export const configCommands: CommandModule = {
  register(program, runtime) {
    const config = program.command('config').description('Show or switch the configured contexts');
    config
      .command('view')
      .description(
        'Show the config file, the context in effect and every service endpoint (token files by path only)',
      )
      .action((_options, command) => {
        const session = runtime.session(command);
        const { settings, printer } = session;
        const file = readConfigFile(settings.configPath, runtime.io.readFile);
        const view = {
          configFile: settings.configPath,
          context: settings.context ?? null,
          contexts: Object.keys(file.contexts),
          endpoints: settings.endpoints,
        };
        if (printer.structured) return printer.document(view);
        printer.line(`Config file: ${view.configFile}`);
        printer.line(`Context:     ${view.context ?? '(none: defaults and environment)'}`);
        printer.line('');
        const rows = Object.entries(settings.endpoints).map(([service, endpoint]) => ({
          service,
          ...endpoint,
        }));
        printer.line(
          printer.table(rows, [
            { header: 'SERVICE', cell: (row) => row.service },
            { header: 'URL', cell: (row) => row.url },
            { header: 'TOKEN-FILE', cell: (row) => row.tokenFile ?? '-' },
          ]),
        );
      });
    config
      .command('use-context')
      .description('Make a context the current one (written to the config file)')
      .argument('<name>', 'context name')
      .action((name: string) => {
        const path = configPath(runtime.io.env);
        const file = readConfigFile(path, runtime.io.readFile);
        if (!file.contexts[name]) throw new UsageError(`no context "${name}" in ${path}`);
        let text: string;
        try {
          text = runtime.io.readFile(path);
        } catch (error) {
          throw new CliError(`cannot read ${path}`, { cause: error });
        }
        // Edits the document in place, so comments and layout survive.
        const document = parseDocument(text);
        document.set('currentContext', name);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, document.toString());
        runtime.io.stdout.write(`switched to context "${name}"\n`);
      });
  },
};
