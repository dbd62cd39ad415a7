import { createHash } from 'node:crypto';
import { type EvaluationAttempt, type RunEvaluation } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';
import type { ServiceLogger } from '@sandbox/service-kit';
import type { Job } from 'bullmq';
import type { DiscoveredRunner } from '../node/discovery';
import type { VerifierMetrics } from '../ops/verifier-metrics';
import type { RunRecord } from '../run/run-record';
import type { EvaluationStore } from '../store/evaluation-store';
import type { SignedEvaluationReport, EVALUATIONS_QUEUE } from '@sandbox/protocol';

export interface RunEvaluationJobDeps {
  store: EvaluationStore;
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  /** Runs `count` evaluations of a pinned job in one session, handing each record over once final. */
  run: (job: RunEvaluation, count: number, onRecord: (record: RunRecord) => Promise<void>) => Promise<void>;
  /** Evaluations per session when the job does not say. */
  evaluationsPerSession: number;
  buildReport: (record: RunRecord) => SignedEvaluationReport | undefined;
  discover: (app: string) => Promise<DiscoveredRunner[]>;
  metrics: VerifierMetrics;
  logger: ServiceLogger;
  wallNow: () => number;
  /** Scheduled runs of one tick start spread over [0, jitterMs). */
  scheduleJitterMs: number;
  random?: () => number;
}

/** A child run's id: stable for one parent job and runner, so a retried fan-out adds each run once. */
function childId(parent: RunEvaluation, job: Job, runnerId: string): string {
  const hash = createHash('sha256')
    .update(`${job.id ?? ''}\0${runnerId}`)
    .digest('hex')
    .slice(0, 16);
  return `${parent.evaluationId.slice(0, 100)}-${hash}`;
}

/** An app-wide target becomes one pinned run per runner Node offers (scheduled ones with jitter). */
async function fanOut(data: RunEvaluation, job: Job, deps: RunEvaluationJobDeps): Promise<unknown> {
  const runners = await deps.discover(data.target.app);
  if (runners.length === 0) deps.logger.warn({ app: data.target.app }, 'no runner offered to evaluate');
  const random = deps.random ?? Math.random;
  for (const runner of runners) {
    const evaluationId = childId(data, job, runner.runnerId);
    const delay = data.trigger === 'scheduled' ? Math.floor(random() * deps.scheduleJitterMs) : 0;
    await deps.producer.add(
      'run-evaluation',
      {
        evaluationId,
        target: { app: data.target.app, runnerId: runner.runnerId },
        requestedAt: new Date(job.timestamp).toISOString(),
        trigger: data.trigger,
        ...(data.evaluationsPerSession === undefined
          ? {}
          : { evaluationsPerSession: data.evaluationsPerSession }),
      },
      { jobId: evaluationId, delay },
    );
  }
  return { fannedOut: runners.length };
}

function attemptOf(
  data: RunEvaluation,
  record: RunRecord,
  report: SignedEvaluationReport,
): EvaluationAttempt {
  const { outcome } = report.report;
  return {
    evaluationId: record.evaluationId,
    trigger: data.trigger,
    finishedAt: report.report.finishedAt,
    status: outcome.status,
    attribution: outcome.attribution,
    reasonCode: outcome.reasonCode,
    sessionId: record.sessionId,
    reportId: report.report.reportId,
  };
}

/** The run was interrupted (the verifier crashed or lost its job lock): a platform attempt without report. */
async function recordInterrupted(
  deps: RunEvaluationJobDeps,
  run: { evaluationId: string; runnerId: string; app: string; trigger: RunEvaluation['trigger'] },
) {
  const attempt: EvaluationAttempt = {
    evaluationId: run.evaluationId,
    trigger: run.trigger,
    finishedAt: new Date(deps.wallNow()).toISOString(),
    status: 'fail',
    attribution: 'platform',
    reasonCode: 'verifier-interrupted',
    sessionId: null,
    reportId: null,
  };
  await deps.store.recordAttempt(run, { attempt, validUntil: null });
  deps.metrics.attempt(run.app, run.runnerId, 'fail', 'platform');
  deps.logger.warn(
    { runner_id: run.runnerId, evaluationId: run.evaluationId },
    'interrupted evaluation recorded',
  );
}

/** Stores one evaluation's signed report and applies it to the target's record. */
async function recordEvaluation(
  data: RunEvaluation,
  target: { runnerId: string; app: string },
  record: RunRecord,
  deps: RunEvaluationJobDeps,
) {
  const report = deps.buildReport(record);
  if (!report) throw new Error('a pinned run always has a runner to report on');
  await deps.store.saveReport(report);
  await deps.store.recordAttempt(target, {
    attempt: attemptOf(data, record, report),
    validUntil: report.report.validUntil,
  });
  deps.metrics.report(report.report);
  const { outcome } = report.report;
  deps.logger.info(
    {
      runner_id: target.runnerId,
      session_id: record.sessionId,
      evaluationId: record.evaluationId,
      sessionEvaluation: record.sessionEvaluation,
      reportId: report.report.reportId,
      outcome,
    },
    'evaluation finished',
  );
  return { reportId: report.report.reportId, status: outcome.status, attribution: outcome.attribution };
}

/**
 * Runs a pinned job: its evaluations in one session, each stored and applied as it becomes final.
 * One in-flight marker covers the job, so a crash anywhere in the series is found on the retry.
 */
async function runPinned(
  data: RunEvaluation,
  runnerId: string,
  deps: RunEvaluationJobDeps,
): Promise<unknown> {
  const target = { runnerId, app: data.target.app };
  const previous = await deps.store.markInflight({
    evaluationId: data.evaluationId,
    ...target,
    trigger: data.trigger,
    startedAt: new Date(deps.wallNow()).toISOString(),
  });
  if (previous) await recordInterrupted(deps, previous);
  const count = data.evaluationsPerSession ?? deps.evaluationsPerSession;
  const reports: Awaited<ReturnType<typeof recordEvaluation>>[] = [];
  await deps.run(data, count, async (record) => {
    reports.push(await recordEvaluation(data, target, record, deps));
  });
  await deps.store.clearInflight(data.evaluationId);
  return { evaluations: count, reports };
}

/** The `run-evaluation` handler: fan-out for app-wide targets, one measured run for pinned ones. */
export function createRunEvaluationHandler(deps: RunEvaluationJobDeps) {
  return async (data: RunEvaluation, job: Job): Promise<unknown> =>
    data.target.runnerId === undefined
      ? fanOut(data, job, deps)
      : runPinned(data, data.target.runnerId, deps);
}
