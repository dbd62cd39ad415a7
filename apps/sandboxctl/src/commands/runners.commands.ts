import {
  RunnerStateSchema,
  type RunnerState,
  type RunnersResponse,
  type RunnerView,
} from '@sandbox/protocol';
import { Option } from 'commander';
import type { CommandModule, StatusFact } from '../cli/runtime';
import { adapterRoutes } from '@sandbox/protocol';
import { adapterService } from '../client/services';
import { age, short } from '../output/format-values';
import type { Column, Tone } from '../output/printer';

const runnerTone = (state: string): Tone | undefined =>
  (
    ({
      registered: 'good',
      capped: 'warn',
      registering: 'warn',
      parked: 'warn',
      failed: 'bad',
      withdrawn: 'dim',
    }) as Record<string, Tone>
  )[state];

function runnerColumns(now: number): Column<RunnerView>[] {
  return [
    { header: 'RUNNER', cell: (runner) => runner.runnerId },
    { header: 'APP', cell: (runner) => runner.app },
    { header: 'STATE', cell: (runner) => runner.state, tone: (runner) => runnerTone(runner.state) },
    {
      header: 'CAPACITY',
      cell: (runner) => `${runner.advertisedCapacity ?? '-'}/${runner.capacity}`,
    },
    { header: 'SESSIONS', cell: (runner) => String(runner.sessions.length) },
    { header: 'LAST-BEAT', cell: (runner) => age(runner.lastBeat?.at, now) },
    {
      header: 'LATENCY',
      cell: (runner) => (runner.lastBeat ? `${Math.round(runner.lastBeat.latencyMs)}ms` : '-'),
    },
    {
      header: 'LAST-ERROR',
      cell: (runner) =>
        runner.failure
          ? `${runner.failure.status}: ${runner.failure.reason}`
          : runner.lastError
            ? `${runner.lastError.status ?? runner.lastError.kind}: ${runner.lastError.message} (x${runner.lastError.consecutive})`
            : '-',
      tone: (runner) => (runner.failure || runner.lastError ? 'bad' : undefined),
    },
    { header: 'INSTANCE', cell: (runner) => runner.instanceId, wide: true },
    { header: 'O2R', cell: (runner) => (runner.o2r.connected ? 'connected' : 'down'), wide: true },
    {
      header: 'INTERVAL',
      cell: (runner) => (runner.heartbeat ? `${runner.heartbeat.intervalMs / 1000}s` : '-'),
      wide: true,
    },
  ];
}

interface SessionRow {
  sessionId: string;
  app: string;
  runnerId: string;
  instanceId: string;
}

const sessionColumns: Column<SessionRow>[] = [
  { header: 'SESSION', cell: (row) => row.sessionId },
  { header: 'APP', cell: (row) => row.app },
  { header: 'RUNNER', cell: (row) => row.runnerId },
  { header: 'INSTANCE', cell: (row) => short(row.instanceId, 16) },
];

/** Node's reachability as the adapter sees it: the newest heartbeat result over every registration. */
function nodeFact(body: RunnersResponse, now: number): StatusFact {
  const live = body.runners.filter((runner) => runner.state !== 'withdrawn' && runner.state !== 'failed');
  const failing = live.filter(
    (runner) => runner.lastError && ['network', 'timeout'].includes(runner.lastError.kind),
  );
  const beats = live.flatMap((runner) => (runner.lastBeat ? [Date.parse(runner.lastBeat.at)] : []));
  const newest = beats.length > 0 ? Math.max(...beats) : undefined;
  if (live.length === 0)
    return { label: 'Node', value: 'unknown (no registrations to heartbeat)', data: { reachable: null } };
  const reachable = failing.length < live.length && newest !== undefined;
  return {
    label: 'Node',
    value: reachable
      ? `reachable (last heartbeat ${age(new Date(newest).toISOString(), now)} ago${failing.length ? `, ${failing.length} failing` : ''})`
      : `unreachable from the adapter (${failing.length}/${live.length} registrations failing)`,
    ok: reachable,
    data: { reachable, failing: failing.length, registrations: live.length },
  };
}

/** `runners list`, `sessions list`: the adapter's Node registrations and the sessions on them. */
export const runnersCommands: CommandModule = {
  services: [adapterService],
  register(program, runtime) {
    program
      .command('runners')
      .description('Inspect Node registrations (adapter)')
      .command('list')
      .description('List registrations: runner id, state, advertised capacity, sessions, last beat and error')
      .option('--app <name>', 'only this app')
      .addOption(new Option('--state <state>', 'only this state').choices(RunnerStateSchema.options))
      .addHelpText(
        'after',
        '\nCAPACITY is advertised/spec.\n\nExamples:\n  sandboxctl runners list --app echo -o wide',
      )
      .action(async (options: { app?: string; state?: RunnerState }, command) => {
        const session = runtime.session(command);
        const body = await session.client.call(adapterRoutes.listRunners, {
          query: { app: options.app, state: options.state },
        });
        session.printer.list(body, body.runners, runnerColumns(runtime.io.now()), 'No registrations.');
      });
    program
      .command('sessions')
      .description('Inspect active sessions (adapter)')
      .command('list')
      .description('List sessions as Node last reported them, with their app and runner')
      .option('--app <name>', 'only this app')
      .addHelpText('after', '\nExamples:\n  sandboxctl sessions list -o json')
      .action(async (options: { app?: string }, command) => {
        const session = runtime.session(command);
        const body = await session.client.call(adapterRoutes.listRunners, { query: { app: options.app } });
        const rows = body.runners.flatMap((runner) =>
          runner.sessions.map((sessionId) => ({
            sessionId,
            app: runner.app,
            runnerId: runner.runnerId,
            instanceId: runner.instanceId,
          })),
        );
        session.printer.list({ sessions: rows }, rows, sessionColumns, 'No sessions.');
      });
  },
  async status(session) {
    const body = await session.client.call(adapterRoutes.listRunners, { query: {} });
    const { drain } = body;
    const registered = body.runners.filter((runner) => runner.state === 'registered').length;
    return [
      nodeFact(body, session.io.now()),
      {
        label: 'Registrations',
        value: `${registered} registered of ${body.runners.length}`,
        data: { registered, total: body.runners.length },
      },
      {
        label: 'Drain',
        value:
          drain.mode === 'open'
            ? 'none (open)'
            : `${drain.mode} by ${drain.drainId ?? '?'} since ${drain.since ?? '?'}`,
        data: drain,
      },
    ];
  },
};
