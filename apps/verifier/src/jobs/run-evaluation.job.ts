import type { RunEvaluation } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';
import type { ServiceLogger } from '@sandbox/service-kit';
import type { Job } from 'bullmq';
import type { DiscoveredRunner } from '../node/discovery';
import type { VerifierMetrics } from '../ops/verifier-metrics';
import type { ReliabilityCounter } from '../run/reliability';
import type { RunRecord } from '../run/run-record';
import type { EvaluationStore } from '../store/evaluation-store';
import type { SignedEvaluationReport, EVALUATIONS_QUEUE } from '@sandbox/protocol';
import { fanOut } from './fan-out';
import { recordEvaluation, recordInterrupted } from './record-evaluation';

export interface RunEvaluationJobDeps {
  store: EvaluationStore;
  producer: Producer<typeof EVALUATIONS_QUEUE>;
  /** Runs `count` evaluations of a pinned job in one session, handing each record over once final. */
  run: (job: RunEvaluation, count: number, onRecord: (record: RunRecord) => Promise<void>) => Promise<void>;
  /** Evaluations per session when the job does not say. */
  evaluationsPerSession: number;
  buildReport: (record: RunRecord) => SignedEvaluationReport | undefined;
  /** Node's discovery for an app; a failure to reach Node throws a `RunFault`. */
  discover: (app: string, reliability: ReliabilityCounter) => Promise<DiscoveredRunner[]>;
  metrics: VerifierMetrics;
  logger: ServiceLogger;
  wallNow: () => number;
  /** Scheduled runs of one tick start spread over [0, jitterMs). */
  scheduleJitterMs: number;
  random?: () => number;
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
