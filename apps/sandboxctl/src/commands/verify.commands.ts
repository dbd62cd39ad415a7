import { verifyReport } from '@sandbox/evaluation-report';
import type { EvaluationAttempt, SignedEvaluationReport, TargetListResponse } from '@sandbox/protocol';
import { Option } from 'commander';
import { CliError, ServiceError, UsageError } from '../cli/errors';
import { collect, durationArgument } from '../cli/options';
import type { CommandModule, CommandSession } from '../cli/runtime';
import { adapterRoutes } from '@sandbox/protocol';
import { verifierRoutes as vr } from '@sandbox/protocol';
import { verifierService } from '../client/services';
import { age } from '../output/format-values';
import type { Column } from '../output/printer';
import { waitUntil } from './wait';

type TargetRow = TargetListResponse['targets'][number];

function targetColumns(now: number): Column<TargetRow>[] {
  return [
    { header: 'RUNNER', cell: (target) => target.runnerId },
    { header: 'APP', cell: (target) => target.app },
    { header: 'RESULT', cell: (target) => target.current?.state ?? '-' },
    { header: 'REASON', cell: (target) => target.current?.reasonCode ?? '-' },
    { header: 'FINISHED', cell: (target) => age(target.current?.finishedAt, now) },
    { header: 'VALID-UNTIL', cell: (target) => target.current?.validUntil ?? '-' },
    { header: 'REPORT', cell: (target) => target.current?.reportId ?? '-', wide: true },
  ];
}

/** The app a runner serves, as the adapter registered it (the verifier's target names both). */
async function appOfRunner(session: CommandSession, runnerId: string): Promise<string> {
  const { runners } = await session.client.call(adapterRoutes.listRunners, { query: {} });
  const runner = runners.find((candidate) => candidate.runnerId === runnerId);
  if (!runner)
    throw new CliError(
      `the adapter has no runner ${runnerId} (sandboxctl runners list shows them); pass --app`,
    );
  return runner.app;
}

function attemptLine(attempt: EvaluationAttempt): string {
  const report = attempt.reportId ? `, report ${attempt.reportId}` : '';
  return `evaluation/${attempt.evaluationId} ${attempt.status} (${attempt.attribution}: ${attempt.reasonCode})${report}`;
}

/** Polls the runner's attempts until the evaluation shows up; exit 1 unless it passed. */
async function watchEvaluation(
  session: CommandSession,
  runnerId: string,
  evaluationId: string,
  timeoutMs: number,
): Promise<void> {
  const attempt = await waitUntil(session.io, {
    timeoutMs,
    what: `evaluation/${evaluationId} to finish`,
    intervalMs: 1_000,
    check: async () => {
      const found = await attemptOf(session, runnerId, evaluationId);
      // Wrapped: the wait reports each change of progress, and "not yet" must compare equal to itself.
      return { done: found !== undefined, progress: { attempt: found ?? null } };
    },
    report: ({ attempt: found }) => {
      if (!found) session.printer.note(`evaluation/${evaluationId} running on ${runnerId}`);
    },
    retrying: (reason) => session.printer.note(`still watching (${reason})`),
    describe: () => 'no attempt recorded yet',
  }).then((progress) => progress.attempt);
  if (!attempt) throw new CliError(`evaluation/${evaluationId} was not recorded`);
  if (session.printer.structured) session.printer.document(attempt);
  else session.printer.line(attemptLine(attempt));
  if (attempt.status !== 'pass')
    throw new CliError(`evaluation/${evaluationId} failed: ${attempt.reasonCode}`);
}

async function attemptOf(session: CommandSession, runnerId: string, evaluationId: string) {
  try {
    const target = await session.client.call(vr.getTarget, { params: { runnerId } });
    return target.attempts.find((attempt) => attempt.evaluationId === evaluationId);
  } catch (error) {
    // A runner evaluated for the first time has no record until its first attempt ends.
    if (error instanceof ServiceError && error.status === 404) return undefined;
    throw error;
  }
}

function printReport(session: CommandSession, signed: SignedEvaluationReport): void {
  const { report } = signed;
  const { printer } = session;
  printer.line(
    `report/${report.reportId} ${report.outcome.status} (${report.outcome.attribution}: ${report.outcome.reasonCode})`,
  );
  printer.line(
    `  runner: ${report.route.runnerId} (app ${report.route.app}), session ${report.route.sessionId ?? '-'}`,
  );
  printer.line(`  finished: ${report.finishedAt}`);
  printer.line(`  verifier key: ${report.verifier.publicKey}`);
  printer.line(`  digest: ${signed.integrity.digest}`);
}

/** Checks digest and signature offline (as the verifier's own verify-report tool does). */
function checkReport(session: CommandSession, signed: SignedEvaluationReport, trusted: string[]): void {
  const malformed = trusted.find((key) => !/^[0-9a-f]{64}$/.test(key));
  if (malformed !== undefined)
    throw new UsageError(`--trusted-key needs 64 lower-case hex characters; got "${malformed}"`);
  const check = verifyReport(signed, trusted.length > 0 ? trusted : undefined);
  if (!check.ok)
    throw new CliError(`report/${signed.report.reportId} is invalid (${check.problem}): ${check.detail}`);
  session.printer.note(
    `report/${signed.report.reportId}: digest and Ed25519 signature verify (key ${check.publicKey})`,
  );
}

interface RunOptions {
  runner: string;
  app?: string;
  watch?: boolean;
  timeout: number;
}

/** `verify run|targets|report`: the verifier's evaluations of runners through Node, and their reports. */
export const verifyCommands: CommandModule = {
  services: [verifierService],
  register(program, runtime) {
    const verify = program
      .command('verify')
      .description('Evaluate runners through Node as a paying client (verifier)');
    verify
      .command('run')
      .description('Evaluate one runner now')
      .requiredOption('--runner <id>', 'the runner to evaluate')
      .option('--app <name>', "the runner's app (default: as the adapter registered it)")
      .option('--watch', 'wait for the result; exit 1 unless it passes')
      .addOption(
        new Option('--timeout <duration>', 'give up watching after')
          .argParser(durationArgument)
          .default(600_000, '10m'),
      )
      .addHelpText('after', '\nExamples:\n  sandboxctl verify run --runner 7iyas2l31b --watch')
      .action(async (options: RunOptions, command) => {
        const session = runtime.session(command);
        const app = options.app ?? (await appOfRunner(session, options.runner));
        const body = { target: { app, runnerId: options.runner } };
        const queued = await session.client.call(vr.createEvaluation, { body });
        if (!options.watch) {
          if (session.printer.structured) return session.printer.document(queued);
          return session.printer.line(`evaluation/${queued.evaluationId} queued`);
        }
        session.printer.note(`evaluation/${queued.evaluationId} queued`);
        await watchEvaluation(session, options.runner, queued.evaluationId, options.timeout);
      });
    verify
      .command('targets')
      .description('Every runner evaluated, with its current result')
      .addHelpText('after', '\nExamples:\n  sandboxctl verify targets -o wide')
      .action(async (_options, command) => {
        const session = runtime.session(command);
        const body = await session.client.call(vr.listTargets, {});
        session.printer.list(
          body,
          body.targets,
          targetColumns(runtime.io.now()),
          'No targets evaluated yet.',
        );
      });
    verify
      .command('report')
      .description('A signed evaluation report; --check verifies its digest and signature offline')
      .argument('<id>', 'the report id (verify targets -o wide shows it)')
      .option('--check', 'verify the RFC 8785 digest and the Ed25519 signature; exit 1 unless both hold')
      .option('--trusted-key <hex>', 'with --check, also require this verifier key (repeatable)', collect)
      .addHelpText(
        'after',
        '\nExamples:\n  sandboxctl verify report rep-1b3ae07b-… --check\n  sandboxctl verify report rep-1b3ae07b-… -o json > report.json',
      )
      .action(async (id: string, options: { check?: boolean; trustedKey?: string[] }, command) => {
        const session = runtime.session(command);
        const signed = await session.client.call(vr.getReport, { params: { reportId: id } });
        if (options.check) checkReport(session, signed, options.trustedKey ?? []);
        if (session.printer.structured) return session.printer.document(signed);
        printReport(session, signed);
      });
  },
};
