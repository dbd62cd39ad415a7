import { CliError } from '../cli/errors';
import type { CommandModule, CommandSession, StatusFact } from '../cli/runtime';
import { probeRoutes, type ReadinessReport, type ServiceName } from '@sandbox/protocol';
import type { Column } from '../output/printer';

interface ServiceStatus {
  service: ServiceName;
  url: string;
  live: boolean;
  /** What `/healthz` reports; null when it reports none. */
  version: string | null;
  ready: boolean;
  readiness: ReadinessReport | null;
  /** Why it could not be probed. */
  error: string | null;
}

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function probe(session: CommandSession, service: ServiceName): Promise<ServiceStatus> {
  const routes = probeRoutes(service);
  const url = session.client.urlOf(service);
  try {
    const { version } = await session.client.call(routes.liveness, {});
    const { status, body } = await session.client.send(routes.readiness, {});
    const ready = status === 200;
    return { service, url, live: true, version: version ?? null, ready, readiness: body, error: null };
  } catch (error) {
    const failed = { live: false, version: null, ready: false, readiness: null };
    return { service, url, ...failed, error: describeError(error) };
  }
}

const columns: Column<ServiceStatus>[] = [
  { header: 'SERVICE', cell: (row) => row.service },
  { header: 'LIVE', cell: (row) => (row.live ? 'yes' : 'no'), tone: (row) => (row.live ? 'good' : 'bad') },
  { header: 'VERSION', cell: (row) => row.version ?? '-' },
  {
    header: 'READY',
    cell: (row) => (row.readiness ? row.readiness.status : 'unreachable'),
    tone: (row) => (row.ready ? 'good' : 'bad'),
  },
  {
    header: 'CHECKS',
    cell: (row) =>
      row.readiness
        ? row.readiness.checks.map((check) => `${check.name}=${check.status}`).join(' ') || '-'
        : '-',
  },
  { header: 'URL', cell: (row) => row.url },
];

/** Redis durability as the services report it: redemption-handoff checks AOF and fsync for its writes. */
function durabilityFact(services: ServiceStatus[]): StatusFact {
  const checks = services.flatMap((row) =>
    (row.readiness?.checks ?? [])
      .filter((check) => check.name === 'redis-durable')
      .map((check) => ({ ...check, service: row.service })),
  );
  if (checks.length === 0)
    return { label: 'Redis durability', value: 'unknown (no service reports it)', data: null };
  const ok = checks.every((check) => check.status === 'pass');
  return {
    label: 'Redis durability',
    value: ok
      ? `durable (AOF with fsync, as ${checks.map((check) => check.service).join(', ')} checks it)`
      : `NOT durable as ${checks
          .filter((check) => check.status !== 'pass')
          .map((c) => c.service)
          .join(', ')} sees it`,
    ok,
    data: checks,
  };
}

async function moduleFacts(
  session: CommandSession,
  modules: readonly CommandModule[],
): Promise<StatusFact[]> {
  const facts = await Promise.all(
    modules.map(async (module) => {
      if (!module.status) return [];
      try {
        return await module.status(session);
      } catch (error) {
        return [
          {
            label: module.services?.[0]?.name ?? 'status',
            value: describeError(error),
            ok: false,
            data: null,
          },
        ];
      }
    }),
  );
  return facts.flat();
}

/** `status`: every service's liveness and readiness, and what each module adds; exit 1 unless all is well. */
export const statusCommand: CommandModule = {
  register(program, runtime) {
    program
      .command('status')
      .description(
        "One screen: each service's liveness and readiness, Redis durability, Node, drain, tickets",
      )
      .addHelpText(
        'after',
        '\nExits 1 when a service is unreachable or not ready, or a check fails.\n\nExamples:\n  sandboxctl status\n  sandboxctl status -o json',
      )
      .action(async (_options, command) => {
        const session = runtime.session(command);
        const services = await Promise.all(runtime.services.map((service) => probe(session, service.name)));
        const reachable = runtime.modules.filter((module) =>
          (module.services ?? []).every(
            (service) => services.find((row) => row.service === service.name)?.live,
          ),
        );
        const facts = [durabilityFact(services), ...(await moduleFacts(session, reachable))];
        const { printer } = session;
        if (printer.structured)
          printer.document({
            services,
            facts: facts.map(({ label, value, ok, data }) => ({ label, value, ok: ok ?? null, data })),
          });
        else {
          printer.line(printer.table(services, columns));
          printer.line('');
          const width = Math.max(...facts.map((fact) => fact.label.length)) + 2;
          for (const fact of facts)
            printer.line(
              `${`${fact.label}:`.padEnd(width)}${printer.tone(fact.value, fact.ok === false ? 'bad' : undefined)}`,
            );
          for (const row of services.filter((service) => service.error))
            printer.note(`${row.service}: ${row.error}`);
        }
        const failing = [
          ...services.filter((row) => !row.ready).map((row) => row.service),
          ...facts.filter((fact) => fact.ok === false).map((fact) => fact.label),
        ];
        if (failing.length > 0) throw new CliError(`not ready: ${failing.join(', ')}`);
      });
  },
};
