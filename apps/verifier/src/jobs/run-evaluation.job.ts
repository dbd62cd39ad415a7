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
  run: (job: RunEvaluation) => Promise<RunRecord>;
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
    evaluationId: data.evaluationId,
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

/** Runs one pinned evaluation, stores its signed report and applies it to the target's record. */
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
  const record = await deps.run(data);
  const report = deps.buildReport(record);
  if (!report) throw new Error('a pinned run always has a runner to report on');
  await deps.store.saveReport(report);
  await deps.store.recordAttempt(target, {
    attempt: attemptOf(data, record, report),
    validUntil: report.report.validUntil,
  });
  await deps.store.clearInflight(data.evaluationId);
  deps.metrics.report(report.report);
  const { outcome } = report.report;
  deps.logger.info(
    {
      runner_id: runnerId,
      session_id: record.sessionId,
      evaluationId: data.evaluationId,
      reportId: report.report.reportId,
      outcome,
    },
    'evaluation finished',
  );
  return { reportId: report.report.reportId, status: outcome.status, attribution: outcome.attribution };
}

/** The `run-evaluation` handler: fan-out for app-wide targets, one measured run for pinned ones. */
export function createRunEvaluationHandler(deps: RunEvaluationJobDeps) {
  return async (data: RunEvaluation, job: Job): Promise<unknown> =>
    data.target.runnerId === undefined
      ? fanOut(data, job, deps)
      : runPinned(data, data.target.runnerId, deps);
}
