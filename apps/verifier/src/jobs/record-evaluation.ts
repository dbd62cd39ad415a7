import type { EvaluationAttempt, RunEvaluation, SignedEvaluationReport } from '@sandbox/protocol';
import type { RunRecord } from '../run/run-record';
import type { RunEvaluationJobDeps } from './run-evaluation.job';

type RecordDeps = Pick<RunEvaluationJobDeps, 'store' | 'buildReport' | 'metrics' | 'logger' | 'wallNow'>;

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
export async function recordInterrupted(
  deps: RecordDeps,
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
export async function recordEvaluation(
  data: RunEvaluation,
  target: { runnerId: string; app: string },
  record: RunRecord,
  deps: RecordDeps,
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
