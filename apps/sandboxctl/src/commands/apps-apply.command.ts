import type { AppResource } from '@sandbox/protocol';
import type { Command } from 'commander';
import { isDeepStrictEqual } from 'node:util';
import { createTwoFilesPatch } from 'diff';
import { stringify as toYaml } from 'yaml';
import { ServiceError } from '../cli/errors';
import { readInput } from '../cli/input';
import { durationArgument } from '../cli/options';
import type { CliRuntime, CommandSession } from '../cli/runtime';
import { instanceManagerRoutes as im } from '@sandbox/protocol';
import { ManifestError, parseAppManifest, type AppDocument } from '../manifest/app-manifest';
import { readinessProgress } from '../output/readiness-progress';
import { describeReadiness, isSettled, readAppReadiness, type AppReadiness } from './app-readiness';
import { waitUntil } from './wait';

type Action = 'created' | 'configured' | 'unchanged';

interface Planned {
  document: AppDocument;
  current: AppResource | undefined;
  action: Action;
}

const MANIFEST_HELP = `
A manifest holds one or more documents (YAML separated by ---, or a JSON object or array):

  kind: App
  name: echo
  spec:
    image: localhost/sandbox-example-app:<hash>
    port: 8080
    mode: persistent
    healthCheck: { type: http, path: /healthz }
    resources: { cpu: 500m, memory: 256Mi }
    instances: { kind: single-session, warmPool: 2, max: 4 }
`;

async function loadDocuments(session: CommandSession, file: string): Promise<AppDocument[]> {
  const { text, source } = await readInput(session.io, file);
  return parseAppManifest(text, source);
}

async function currentApp(session: CommandSession, name: string): Promise<AppResource | undefined> {
  try {
    return await session.client.call(im.getApp, { params: { app: name } });
  } catch (error) {
    if (error instanceof ServiceError && error.status === 404) return undefined;
    throw error;
  }
}

/** What applying each document would do, read before anything is written. */
async function plan(session: CommandSession, documents: AppDocument[]): Promise<Planned[]> {
  return Promise.all(
    documents.map(async (document) => {
      const current = await currentApp(session, document.name);
      const action: Action =
        current === undefined
          ? 'created'
          : isDeepStrictEqual(current.spec, document.parsed)
            ? 'unchanged'
            : 'configured';
      return { document, current, action };
    }),
  );
}

/** A 400 from the service, with each field it names pointed at its line in the manifest. */
function withLines(error: unknown, document: AppDocument, applied: readonly string[]): unknown {
  if (!(error instanceof ServiceError) || error.status !== 400 || !error.body.error.issues) return error;
  const source = document.origin.replace(/:\d+$/, '');
  return new ManifestError(
    source,
    error.body.error.issues.map((issue) => {
      const path = issue.path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
      return `${document.locate(path)}: ${issue.path}: ${issue.message} (refused by ${error.service})`;
    }),
    applied,
  );
}

async function waitReady(session: CommandSession, names: string[], timeoutMs: number): Promise<void> {
  const progress = readinessProgress(session.printer);
  try {
    await waitUntil<AppReadiness[]>(session.io, {
      timeoutMs,
      what: `${names.map((name) => `app/${name}`).join(', ')} to be ready and registered`,
      check: async () => {
        const states = await Promise.all(names.map((name) => readAppReadiness(session.client, name)));
        return { done: states.every(isSettled), progress: states };
      },
      report: (states) => states.forEach((state) => progress.update(state)),
      retrying: (reason) => session.printer.note(`${reason}; retrying until the timeout`),
      describe: (states) => states.map((state) => `app/${state.app}: ${describeReadiness(state)}`).join('; '),
    });
  } finally {
    progress.stop();
  }
}

interface ApplyOptions {
  filename: string;
  dryRun: boolean;
  wait: boolean;
  timeout: number;
}

async function apply(session: CommandSession, options: ApplyOptions): Promise<void> {
  const documents = await loadDocuments(session, options.filename);
  const planned = await plan(session, documents);
  const { printer, client } = session;
  if (options.dryRun) {
    for (const { document, action } of planned) printer.line(`app/${document.name} ${action} (dry run)`);
    return;
  }
  const applied: AppResource[] = [];
  for (const { document, action } of planned) {
    try {
      applied.push(await client.call(im.putApp, { params: { app: document.name }, body: document.spec }));
    } catch (error) {
      throw withLines(
        error,
        document,
        applied.map((app) => app.name),
      );
    }
    if (!printer.structured) printer.line(`app/${document.name} ${action}`);
  }
  if (options.wait)
    await waitReady(
      session,
      documents.map((document) => document.name),
      options.timeout,
    );
  if (printer.structured) printer.document({ apps: applied });
}

/** `apps apply -f FILE|-`. */
export function registerApply(apps: Command, runtime: CliRuntime): void {
  apps
    .command('apply')
    .description('Create or update apps from a manifest (every document is validated before any is applied)')
    .requiredOption('-f, --filename <file>', 'manifest file, or - for standard input')
    .option('--dry-run', 'validate and show what would change, without applying', false)
    .option('--wait', 'wait until the declared instances are ready and registered with Node', false)
    .option('--timeout <duration>', 'how long --wait waits', durationArgument, 300_000)
    .addHelpText(
      'after',
      `${MANIFEST_HELP}\nExamples:\n  sandboxctl apps apply -f echo.yaml --wait\n  cat apps.json | sandboxctl apps apply -f - --dry-run`,
    )
    .action(async (options: ApplyOptions, command: Command) => apply(runtime.session(command), options));
}

function specDiff(entry: Planned): string {
  const before = entry.current ? toYaml(entry.current.spec) : '';
  const after = toYaml(entry.document.parsed);
  const label = `app/${entry.document.name}`;
  return createTwoFilesPatch(`${label} (live)`, `${label} (manifest)`, before, after, undefined, undefined, {
    context: 3,
  });
}

/** `apps diff -f FILE|-`. */
export function registerDiff(apps: Command, runtime: CliRuntime): void {
  apps
    .command('diff')
    .description("Show how a manifest differs from the apps' live specs (defaults applied on both sides)")
    .requiredOption('-f, --filename <file>', 'manifest file, or - for standard input')
    .addHelpText('after', '\nExamples:\n  sandboxctl apps diff -f echo.yaml')
    .action(async (options: { filename: string }, command: Command) => {
      const session = runtime.session(command);
      const planned = await plan(session, await loadDocuments(session, options.filename));
      for (const entry of planned) {
        if (entry.action === 'unchanged') session.printer.note(`app/${entry.document.name} unchanged`);
        else session.printer.stdout.write(colourDiff(session, specDiff(entry)));
      }
    });
}

function colourDiff(session: CommandSession, patch: string): string {
  const { printer } = session;
  return patch
    .split('\n')
    .filter((line) => !line.startsWith('====='))
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? printer.tone(line, 'good')
        : line.startsWith('-') && !line.startsWith('---')
          ? printer.tone(line, 'bad')
          : line,
    )
    .join('\n');
}
