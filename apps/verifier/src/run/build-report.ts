import { signReport, type ReportSigningKey } from '@sandbox/evaluation-report';
import { EVALUATION_REPORT_V1, type EvaluationReport, type SignedEvaluationReport } from '@sandbox/protocol';
import type { Plan } from '../plan/plan';
import type { RunRecord } from './run-record';

/** The verifier's identity and how long its results stay current. */
export interface ReportDeps {
  verifierId: string;
  verifierVersion: string;
  key: ReportSigningKey;
  plan: Plan;
  nodeUrl: string;
  resultTtlMs: number;
  newReportId: () => string;
}

function priceWeiPerSecond(record: RunRecord): string | undefined {
  const price = record.runner?.runner.price_info;
  if (!price || price.unit !== 'seconds') return undefined;
  return BigInt(Math.round(price.price)).toString();
}

function route(
  record: RunRecord,
  deps: ReportDeps,
  runnerId: string,
  app: string,
): EvaluationReport['route'] {
  const runner = record.runner?.runner;
  const price = priceWeiPerSecond(record);
  return {
    orchestratorUrl: record.runner?.orchestratorUrl ?? deps.nodeUrl,
    nodeUrl: deps.nodeUrl,
    runnerId,
    sessionId: record.sessionId,
    ...(runner === undefined ? {} : { mode: runner.mode }),
    sessionEvaluation: record.sessionEvaluation,
    app,
    ...(runner?.version === undefined ? {} : { appVersion: runner.version }),
    ...(runner?.metadata === undefined ? {} : { instanceMetadata: runner.metadata.slice(0, 1024) }),
    ...(price === undefined ? {} : { priceWeiPerSecond: price }),
  };
}

/**
 * The signed v1 report of a run, or undefined when the run never reached a runner it could name (no
 * runner offered for an app-wide target): there is nothing to attribute it to.
 */
export function buildReport(record: RunRecord, deps: ReportDeps): SignedEvaluationReport | undefined {
  const runnerId = record.runner?.runnerId ?? record.job.target.runnerId;
  if (runnerId === undefined) return undefined;
  const fault = record.fault;
  const report: EvaluationReport = {
    schemaVersion: EVALUATION_REPORT_V1,
    reportId: deps.newReportId(),
    evaluationId: record.evaluationId,
    trigger: record.job.trigger,
    verifier: { id: deps.verifierId, version: deps.verifierVersion, publicKey: deps.key.publicKeyHex },
    startedAt: new Date(record.startedAt).toISOString(),
    finishedAt: new Date(record.finishedAt).toISOString(),
    validUntil: new Date(record.finishedAt + deps.resultTtlMs).toISOString(),
    route: route(record, deps, runnerId, record.job.target.app),
    seedCommitment: { algorithm: 'sha256', value: record.seedCommitment },
    plan: deps.plan,
    outcome: fault
      ? {
          status: 'fail',
          attribution: fault.attribution,
          reasonCode: fault.reasonCode,
          reason: fault.message,
        }
      : { status: 'pass', attribution: 'none', reasonCode: 'ok' },
    ...record.results,
    reliability: record.reliability.snapshot(),
  };
  return signReport(report, deps.key);
}
