import { TicketStateSchema, type TicketRecordView, type TicketState } from '@sandbox/protocol';
import { InvalidArgumentError, Option } from 'commander';
import type { ApiClient } from '../client/api-client';
import type { CommandModule, CommandSession } from '../cli/runtime';
import { redemptionHandoffRoutes as rh } from '@sandbox/protocol';
import { redemptionHandoffService } from '../client/services';
import { age, duration, formatWei, short } from '../output/format-values';
import type { Column, Printer } from '../output/printer';

/** States in which a ticket's value is still at risk (not redeemed or otherwise ended). */
const PENDING: readonly TicketState[] = ['received', 'delivering', 'accepted'];
/** Undelivered tickets this close to their deadline raise an alert. */
const DEADLINE_ALERT_MS = 3_600_000;
/** The largest page the handoff serves. */
const PAGE = 500;

function ticketColumns(now: number): Column<TicketRecordView>[] {
  const untilDeadline = (ticket: TicketRecordView) => Date.parse(ticket.deadlineAt) - now;
  return [
    { header: 'TICKET', cell: (ticket) => short(ticket.ticketHash, 14) },
    { header: 'STATE', cell: (ticket) => ticket.state },
    { header: 'SENDER', cell: (ticket) => short(ticket.sender, 14) },
    { header: 'FACE-VALUE', cell: (ticket) => formatWei(ticket.faceValue) },
    {
      header: 'DEADLINE',
      cell: (ticket) => (untilDeadline(ticket) > 0 ? `in ${duration(untilDeadline(ticket))}` : 'passed'),
      tone: (ticket) =>
        PENDING.includes(ticket.state) && untilDeadline(ticket) < DEADLINE_ALERT_MS ? 'bad' : undefined,
    },
    { header: 'ATTEMPTS', cell: (ticket) => String(ticket.attempts) },
    {
      header: 'LAST-ERROR',
      cell: (ticket) => ticket.lastError ?? '-',
      tone: (t) => (t.lastError ? 'warn' : undefined),
    },
    { header: 'HASH', cell: (ticket) => ticket.ticketHash, wide: true },
    { header: 'RECEIVED', cell: (ticket) => age(ticket.receivedAt, now), wide: true },
    { header: 'REASON', cell: (ticket) => ticket.reason ?? '-', wide: true },
    { header: 'TX', cell: (ticket) => ticket.txHash ?? '-', wide: true },
  ];
}

/** One page of pending tickets per pending state (enough for a summary; the count says when there are more). */
async function pendingTickets(client: ApiClient) {
  const pages = await Promise.all(
    PENDING.map((state) => client.call(rh.listTickets, { query: { state, limit: PAGE } })),
  );
  return {
    tickets: pages.flatMap((page) => page.tickets),
    truncated: pages.some((page) => page.nextCursor !== undefined),
  };
}

/** The summary behind `tickets status` (and the liability line of `status`). */
async function ticketSummary(session: CommandSession) {
  const now = session.io.now();
  const [liabilities, pending] = await Promise.all([
    session.client.call(rh.liabilities, {}),
    pendingTickets(session.client),
  ]);
  const undelivered = pending.tickets.filter((ticket) => ticket.state !== 'accepted');
  const deadlines = pending.tickets.map((ticket) => ticket.deadlineAt).sort();
  const alerts: string[] = [];
  const expiring = undelivered.filter((ticket) => Date.parse(ticket.deadlineAt) - now < DEADLINE_ALERT_MS);
  if (expiring.length > 0)
    alerts.push(
      `${expiring.length} undelivered ticket(s) reach their deadline within ${duration(DEADLINE_ALERT_MS)}`,
    );
  const failing = undelivered.filter((ticket) => ticket.lastError !== undefined);
  if (failing.length > 0)
    alerts.push(
      `${failing.length} ticket(s) failing delivery (${[...new Set(failing.map((ticket) => ticket.lastError))].join(', ')})`,
    );
  return {
    pendingWinners: pending.tickets.length,
    pendingIsLowerBound: pending.truncated,
    undelivered: undelivered.length,
    faceValueAtRiskWei: liabilities.totalPendingFaceValue,
    nearestDeadline: deadlines[0] ?? null,
    payers: liabilities.payers,
    alerts,
    asOf: liabilities.asOf,
  };
}

type TicketSummary = Awaited<ReturnType<typeof ticketSummary>>;

function printSummary(printer: Printer, summary: TicketSummary, now: number): void {
  const pending = `${summary.pendingWinners}${summary.pendingIsLowerBound ? '+' : ''}`;
  const deadline = summary.nearestDeadline;
  printer.line(`Pending winners:    ${pending} (${summary.undelivered} not yet delivered)`);
  printer.line(
    `Face value at risk: ${formatWei(summary.faceValueAtRiskWei)} (${summary.faceValueAtRiskWei} wei)`,
  );
  printer.line(
    `Nearest deadline:   ${deadline ? `${deadline} (in ${duration(Math.max(0, Date.parse(deadline) - now))})` : '-'}`,
  );
  printer.line(`Alerts:             ${summary.alerts.length === 0 ? 'none' : ''}`);
  for (const alert of summary.alerts) printer.line(`  ${printer.tone(alert, 'bad')}`);
}

function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > PAGE)
    throw new InvalidArgumentError(`expected 1-${PAGE}`);
  return number;
}

/** `tickets status`, `tickets list`: winning tickets in redemption-handoff. */
export const ticketsCommands: CommandModule = {
  services: [redemptionHandoffService],
  register(program, runtime) {
    const tickets = program
      .command('tickets')
      .description('Winning tickets and the liability they carry (redemption-handoff)');
    tickets
      .command('status')
      .description('Pending winners, face value at risk, nearest deadline, alerts')
      .addHelpText('after', '\nExamples:\n  sandboxctl tickets status\n  sandboxctl tickets status -o json')
      .action(async (_options, command) => {
        const session = runtime.session(command);
        const summary = await ticketSummary(session);
        const { printer } = session;
        if (printer.structured) return printer.document(summary);
        printSummary(printer, summary, runtime.io.now());
      });
    tickets
      .command('list')
      .description('List winning tickets, newest first (never their secrets)')
      .addOption(new Option('--state <state>', 'only this state').choices(TicketStateSchema.options))
      .option('--limit <n>', `tickets per page (1-${PAGE})`, positiveInt, 100)
      .option('--cursor <cursor>', 'the page after the one that printed this cursor')
      .addHelpText(
        'after',
        '\nExamples:\n  sandboxctl tickets list --state delivering\n  sandboxctl tickets list -o json --limit 500',
      )
      .action(async (options: { state?: TicketState; limit: number; cursor?: string }, command) => {
        const session = runtime.session(command);
        const { state, limit, cursor } = options;
        const body = await session.client.call(rh.listTickets, { query: { state, limit, cursor } });
        session.printer.list(body, body.tickets, ticketColumns(runtime.io.now()), 'No tickets.');
        const filter = `${state ? ` --state ${state}` : ''} --limit ${limit}`;
        if (body.nextCursor && !session.printer.structured)
          session.printer.note(`more: sandboxctl tickets list${filter} --cursor ${body.nextCursor}`);
      });
  },
  async status(session) {
    const summary = await ticketSummary(session);
    return [
      {
        label: 'Tickets',
        value:
          `${summary.pendingWinners}${summary.pendingIsLowerBound ? '+' : ''} pending, ` +
          `${formatWei(summary.faceValueAtRiskWei)} at risk` +
          (summary.alerts.length > 0 ? `; ${summary.alerts.join('; ')}` : ''),
        ok: summary.alerts.length === 0 ? undefined : false,
        data: summary,
      },
    ];
  },
};
