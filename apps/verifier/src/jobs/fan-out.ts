import { createHash } from 'node:crypto';
import type { EvaluationAttempt, RunEvaluation } from '@sandbox/protocol';
import type { Job } from 'bullmq';
import type { DiscoveredRunner } from '../node/discovery';
import { RunFault, unknownFault } from '../run/faults';
import { ReliabilityCounter } from '../run/reliability';
import { faultRecord } from '../run/run-evaluation';
import { recordEvaluation } from './record-evaluation';
import type { RunEvaluationJobDeps } from './run-evaluation.job';

/** A child run's id: stable for one parent job and runner, so a retried fan-out adds each run once. */
function childId(parent: RunEvaluation, job: Job, runnerId: string): string {
  const hash = createHash('sha256')
    .update(`${job.id ?? ''}\0${runnerId}`)
    .digest('hex')
    .slice(0, 16);
  return `${parent.evaluationId.slice(0, 100)}-${hash}`;
}

/**
 * An app-wide run that reached no runner (Node unreachable or failing, or no runner offered): the
 * attempt is recorded on the app, and on every runner of the app evaluated before, with a signed
 * report, so no older pass of theirs stays current over it.
 */
async function recordAppFailure(
  data: RunEvaluation,
  job: Job,
  failure: { fault: RunFault; reliability: ReliabilityCounter; startedAt: number },
  deps: RunEvaluationJobDeps,
): Promise<unknown> {
  const { app } = data.target;
  const { fault } = failure;
  const attempt: EvaluationAttempt = {
    evaluationId: data.evaluationId,
    trigger: data.trigger,
    finishedAt: new Date(deps.wallNow()).toISOString(),
    status: 'fail',
    attribution: fault.attribution,
    reasonCode: fault.reasonCode,
    sessionId: null,
    reportId: null,
  };
  await deps.store.recordAppAttempt(app, attempt);
  deps.logger.warn(
    { app, evaluationId: data.evaluationId, attribution: fault.attribution, reasonCode: fault.reasonCode },
    'app-wide evaluation reached no runner',
  );
  const known = (await deps.store.listTargets()).filter((target) => target.app === app);
  for (const { runnerId } of known) {
    const child: RunEvaluation = {
      ...data,
      evaluationId: childId(data, job, runnerId),
      target: { app, runnerId },
    };
    const record = faultRecord(child, failure, deps.wallNow);
    await recordEvaluation(child, { runnerId, app }, record, deps);
  }
  return { fannedOut: 0, reasonCode: fault.reasonCode, runnersRecorded: known.length };
}

/** An app-wide target becomes one pinned run per runner Node offers (scheduled ones with jitter). */
export async function fanOut(data: RunEvaluation, job: Job, deps: RunEvaluationJobDeps): Promise<unknown> {
  const reliability = new ReliabilityCounter();
  const startedAt = deps.wallNow();
  let runners: DiscoveredRunner[];
  try {
    runners = await deps.discover(data.target.app, reliability);
  } catch (error) {
    if (!(error instanceof RunFault)) throw error;
    return recordAppFailure(data, job, { fault: error, reliability, startedAt }, deps);
  }
  if (runners.length === 0) {
    const fault = unknownFault('no-runner-offered', 'Node offers no runner of the app');
    return recordAppFailure(data, job, { fault, reliability, startedAt }, deps);
  }
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
