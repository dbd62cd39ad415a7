import {
  parseDrainDurationMs,
  TERMINAL_DRAIN_PHASES,
  type DrainPhaseChange,
  type DrainRecord,
  type DrainTarget,
} from '@sandbox/protocol';
import { Option } from 'commander';
import { CliError, UsageError } from '../cli/errors';
import { durationArgument } from '../cli/options';
import type { CommandModule, CommandSession } from '../cli/runtime';
import { drainControllerRoutes as dc } from '@sandbox/protocol';
import { drainControllerService } from '../client/services';
import { duration } from '../output/format-values';
import type { Printer } from '../output/printer';
import { waitUntil } from './wait';

const isActive = (drain: DrainRecord) => !TERMINAL_DRAIN_PHASES.includes(drain.phase);

/** The drain in progress (the service allows one at a time), else a clear failure. */
async function activeDrain(session: CommandSession): Promise<DrainRecord> {
  const { drains } = await session.client.call(dc.listDrains, {});
  const active = drains.find(isActive);
  if (!active) throw new CliError('no drain is in progress (sandboxctl drain status shows the last ones)');
  return active;
}

/** One line: phase, sessions left per app, time to the deadline. */
export function drainLine(drain: DrainRecord, now: number): string {
  const left = Date.parse(drain.deadline) - now;
  const apps = Object.entries(drain.sessions?.byApp ?? {})
    .map(([app, count]) => `${app}=${count}`)
    .join(' ');
  const sessions = drain.sessions ? `${drain.sessions.total} session(s) left${apps ? ` (${apps})` : ''}` : '';
  const deadline = isActive(drain) ? (left > 0 ? `deadline in ${duration(left)}` : 'deadline passed') : '';
  const error = drain.lastError ? `last error: ${drain.lastError.message}` : '';
  return [`drain/${drain.id} ${drain.phase}`, sessions, deadline, error].filter(Boolean).join(', ');
}

function printDrain(printer: Printer, drain: DrainRecord, now: number): void {
  if (printer.structured) return printer.document(drain);
  const target = 'image' in drain.target ? `image ${drain.target.image}` : 'restart';
  printer.line(drainLine(drain, now));
  printer.line(`  target: ${target}; reason: ${drain.reason}; window ${duration(drain.windowMs)}`);
  printer.line(`  deadline: ${drain.deadline}`);
  for (const change of drain.history)
    printer.line(`  ${change.at}  ${change.phase}${change.note ? ` (${change.note})` : ''}`);
}

/** A phase the drain went through between two looks, from its history. */
const passedLine = (drain: DrainRecord, change: DrainPhaseChange): string =>
  `drain/${drain.id} ${change.phase}, at ${change.at}${change.note ? ` (${change.note})` : ''}`;

/**
 * Follows a drain until it ends: a line per change, including phases that began and ended between
 * two polls (read from its history, so none goes unseen); exit 1 unless it ends `done`.
 */
async function watchDrain(session: CommandSession, drain: DrainRecord, timeoutMs: number): Promise<void> {
  const { io, printer, client } = session;
  let shown = 0;
  const report = (current: DrainRecord): void => {
    for (const change of current.history.slice(shown, -1)) printer.note(passedLine(current, change));
    shown = current.history.length;
    printer.note(drainLine(current, io.now()));
  };
  const final = await waitUntil(io, {
    timeoutMs,
    what: `drain/${drain.id} to end`,
    intervalMs: 1_000,
    check: async () => {
      const current = await client.call(dc.getDrain, { params: { id: drain.id } });
      return { done: !isActive(current), progress: current };
    },
    same: (a, b) =>
      a.history.length === b.history.length && drainLine(a, io.now()) === drainLine(b, io.now()),
    report,
    retrying: (reason) => printer.note(`still watching (${reason})`),
    describe: (current) => current.phase,
  });
  printDrain(printer, final, io.now());
  if (final.phase !== 'done') throw new CliError(`drain/${final.id} ended ${final.phase}`);
}

interface StartOptions {
  window?: string;
  image?: string;
  restart?: boolean;
  reason: string;
  quietPeriod?: string;
  watch?: boolean;
  timeout: number;
}

function targetOf(options: StartOptions): DrainTarget {
  if (options.image !== undefined && options.restart)
    throw new UsageError('drain start takes --image REF or --restart, not both');
  if (options.image !== undefined) return { image: options.image };
  if (options.restart) return { restart: true };
  throw new UsageError('drain start needs --image REF (a new Node image) or --restart');
}

/** `--to 10h`: the `by` that makes the window (start to deadline) this long. */
function extensionTo(drain: DrainRecord, to: string): string {
  const toMs = parseDrainDurationMs(to);
  if (toMs === undefined) throw new UsageError(`--to needs a duration such as 10h or PT10H; got "${to}"`);
  const byMs = toMs - (Date.parse(drain.deadline) - Date.parse(drain.createdAt));
  if (byMs <= 0)
    throw new UsageError(
      `drain/${drain.id}'s window is already ${duration(toMs - byMs)}; --to must be longer (the deadline only moves later)`,
    );
  return `${byMs}ms`;
}

const WATCH_HELP =
  '\n--watch follows the drain (phase, sessions left per app, time to the deadline) until it ends.';

/** `drain start|status|abort|extend`: upgrading or restarting Node without cutting sessions early. */
export const drainCommands: CommandModule = {
  services: [drainControllerService],
  register(program, runtime) {
    const drain = program
      .command('drain')
      .description('Replace Node (new image or restart) keeping sessions for a window (drain-controller)');
    drain
      .command('start')
      .description('Start a drain: withdraw new work, keep sessions up to the window, replace Node, resume')
      .option(
        '--window <duration>',
        "how long sessions are kept (Go or ISO 8601, at most 12h; default: the service's)",
      )
      .option('--image <ref>', 'the new Node image')
      .option('--restart', 'restart the same Node')
      .option('--reason <text>', 'why (kept in the drain record)', 'started with sandboxctl')
      .option(
        '--quiet-period <duration>',
        "how long no session must show before moving on (default: the service's)",
      )
      .option('--watch', 'follow the drain until it ends')
      .addOption(
        new Option('--timeout <duration>', 'give up watching after')
          .argParser(durationArgument)
          .default(13 * 3_600_000, '13h'),
      )
      .addHelpText(
        'after',
        `${WATCH_HELP}\n\nExamples:\n  sandboxctl drain start --window 6h --restart --watch\n  sandboxctl drain start --window 2h --image livepeer/node:1.2.3 --reason "node 1.2.3"`,
      )
      .action(async (options: StartOptions, command) => {
        const session = runtime.session(command);
        const body = {
          target: targetOf(options),
          reason: options.reason,
          ...(options.window === undefined ? {} : { window: options.window }),
          ...(options.quietPeriod === undefined ? {} : { quietPeriod: options.quietPeriod }),
        };
        const created = await session.client.call(dc.createDrain, { body });
        if (!options.watch) return printDrain(session.printer, created, runtime.io.now());
        session.printer.note(`drain/${created.id} started`);
        await watchDrain(session, created, options.timeout);
      });
    drain
      .command('status')
      .description('The drain in progress, else the latest one')
      .argument('[id]', 'a drain id (default: the active or latest drain)')
      .addHelpText('after', '\nExamples:\n  sandboxctl drain status\n  sandboxctl drain status -o json')
      .action(async (id: string | undefined, _options, command) => {
        const session = runtime.session(command);
        if (id !== undefined)
          return printDrain(
            session.printer,
            await session.client.call(dc.getDrain, { params: { id } }),
            runtime.io.now(),
          );
        const { drains } = await session.client.call(dc.listDrains, {});
        const shown = drains.find(isActive) ?? drains[0];
        if (!shown)
          return session.printer.structured
            ? session.printer.document(null)
            : session.printer.line('No drains.');
        printDrain(session.printer, shown, runtime.io.now());
      });
    drain
      .command('abort')
      .description('Abort the drain in progress: resume at once (after a replacement already under way)')
      .addHelpText('after', '\nExamples:\n  sandboxctl drain abort')
      .action(async (_options, command) => {
        const session = runtime.session(command);
        const active = await activeDrain(session);
        const aborted = await session.client.call(dc.abortDrain, { params: { id: active.id } });
        printDrain(session.printer, aborted, runtime.io.now());
      });
    drain
      .command('extend')
      .description('Move the deadline of the drain in progress later: the window becomes --to long')
      .requiredOption('--to <duration>', 'the new window, from the start of the drain (at most 12h)')
      .addHelpText('after', '\nExamples:\n  sandboxctl drain extend --to 10h')
      .action(async (options: { to: string }, command) => {
        const session = runtime.session(command);
        const active = await activeDrain(session);
        const by = extensionTo(active, options.to);
        const extended = await session.client.call(dc.extendDrain, {
          params: { id: active.id },
          body: { by },
        });
        printDrain(session.printer, extended, runtime.io.now());
      });
  },
  async status(session) {
    const { drains } = await session.client.call(dc.listDrains, {});
    const active = drains.find(isActive);
    const last = drains[0];
    const value = active
      ? drainLine(active, session.io.now())
      : last
        ? `none in progress (last: drain/${last.id} ${last.phase})`
        : 'none in progress';
    return [{ label: 'Drain controller', value, data: active ?? null }];
  },
};
