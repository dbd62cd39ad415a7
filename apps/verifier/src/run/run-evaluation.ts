import { createHash, randomBytes } from 'node:crypto';
import type { RunEvaluation } from '@sandbox/protocol';
import type { ServiceLogger } from '@sandbox/service-kit';
import type { DiscoveredRunner } from '../node/discovery';
import type { NodeSession } from '../node/node-session';
import { singleShotCaller } from '../node/single-shot';
import type { SignerClient } from '../node/signer-client';
import { measureDownload } from '../plan/download.step';
import { measureHashRate } from '../plan/hash.step';
import { measureLatency } from '../plan/latency.step';
import type { Plan, StepContext } from '../plan/plan';
import { measureUpload } from '../plan/upload.step';
import { platformFault, RunFault, targetFault } from './faults';
import { ReliabilityCounter } from './reliability';
import type { Measurements, RunRecord } from './run-record';

/** Everything a run needs, passed in explicitly. */
export interface RunDeps {
  nodeUrl: string;
  plan: Plan;
  requestTimeoutMs: number;
  paymentIntervalMs: number;
  signer: SignerClient;
  logger: ServiceLogger;
  /** Wall clock (ms since the epoch) for timestamps. */
  wallNow: () => number;
  /** Monotonic clock (ms) for every measured duration. */
  monoNow: () => number;
  /** @defaultValue 32 bytes of `crypto.randomBytes` */
  newSeed?: () => Uint8Array;
  /** Aborted when the verifier shuts down: the run ends its session and is recorded as `platform`. */
  stopSignal?: AbortSignal;
}

/** The id of evaluation `index` of `count` in one session: the job's own when it is the only one. */
function sessionEvaluationId(job: RunEvaluation, index: number, count: number): string {
  return count === 1 ? job.evaluationId : `${job.evaluationId}-${index}`;
}

/** A fresh record (and its seed, kept apart: the record holds only the commitment). */
export function newRunRecord(job: RunEvaluation, index: number, count: number, deps: RunDeps) {
  const seed = (deps.newSeed ?? (() => randomBytes(32)))();
  const record: RunRecord = {
    job,
    evaluationId: sessionEvaluationId(job, index, count),
    sessionEvaluation: { index, count },
    startedAt: deps.wallNow(),
    finishedAt: 0,
    runner: undefined,
    sessionId: null,
    seedCommitment: createHash('sha256').update(seed).digest('hex'),
    results: { latency: null, download: null, upload: null, hashRate: null },
    reliability: new ReliabilityCounter(),
    fault: undefined,
  };
  return { record, seed };
}

/**
 * The record of an evaluation that failed before it reached its runner (Node unreachable or failing,
 * no runner offered): no seed was ever sent, so its commitment is to one drawn and dropped here.
 */
export function faultRecord(
  job: RunEvaluation,
  failure: { fault: RunFault; reliability: ReliabilityCounter; startedAt: number },
  wallNow: () => number,
): RunRecord {
  return {
    job,
    evaluationId: job.evaluationId,
    sessionEvaluation: { index: 1, count: 1 },
    startedAt: failure.startedAt,
    finishedAt: wallNow(),
    runner: undefined,
    sessionId: null,
    seedCommitment: createHash('sha256').update(randomBytes(32)).digest('hex'),
    results: { latency: null, download: null, upload: null, hashRate: null },
    reliability: failure.reliability,
    fault: failure.fault,
  };
}

async function measure(context: StepContext, results: Measurements): Promise<void> {
  results.latency = await measureLatency(context);
  results.download = await measureDownload(context);
  results.upload = await measureUpload(context);
  results.hashRate = await measureHashRate(context, context.plan.runTimeoutMs);
}

function abortFault(reason: unknown): RunFault {
  if (reason === 'stopping') return platformFault('verifier-stopping', 'the verifier stopped during the run');
  return targetFault('run-timeout', 'the run exceeded its time limit', 'timeout');
}

/** Where an evaluation's requests go: an open session, or single-shot calls of a runner. */
export type EvaluationRoute =
  { mode: 'persistent'; session: NodeSession } | { mode: 'single-shot'; runner: DiscoveredRunner };

/**
 * One evaluation of the plan, in an open session or through single-shot calls, with its own seed,
 * counters and deadline (`plan.runTimeoutMs`). Never throws: a failure becomes the record's fault.
 * The seed is wiped after.
 */
export async function evaluateOn(
  route: EvaluationRoute,
  run: { record: RunRecord; seed: Uint8Array },
  deps: RunDeps,
): Promise<void> {
  const { record, seed } = run;
  // Each single-shot call is a session of its own: the report names none.
  record.sessionId = route.mode === 'persistent' ? route.session.sessionId : null;
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort('deadline'), deps.plan.runTimeoutMs);
  const onStop = () => controller.abort('stopping');
  deps.stopSignal?.addEventListener('abort', onStop, { once: true });
  if (deps.stopSignal?.aborted) controller.abort('stopping');
  try {
    await measure(stepContext(route, seed, deps, record, controller.signal), record.results);
  } catch (error) {
    record.fault =
      error instanceof RunFault ? error : platformFault('verifier-error', 'the run failed', error);
  } finally {
    clearTimeout(deadline);
    deps.stopSignal?.removeEventListener('abort', onStop);
    seed.fill(0);
  }
  // Whatever failed once the run was cut short by its deadline or by the verifier stopping is the
  // consequence of that cut.
  if (record.fault && controller.signal.aborted) record.fault = abortFault(controller.signal.reason);
  record.finishedAt = deps.wallNow();
}

function stepContext(
  route: EvaluationRoute,
  seed: Uint8Array,
  deps: RunDeps,
  record: RunRecord,
  runSignal: AbortSignal,
): StepContext {
  const common = {
    seed,
    plan: deps.plan,
    reliability: record.reliability,
    runSignal,
    requestTimeoutMs: deps.requestTimeoutMs,
    now: deps.monoNow,
  };
  if (route.mode === 'persistent')
    return { ...common, appUrl: route.session.appUrl, sessionId: route.session.sessionId };
  const singleShot = singleShotCaller(route.runner, {
    signer: deps.signer,
    reliability: record.reliability,
    timeoutMs: deps.requestTimeoutMs,
    signal: runSignal,
  });
  return { ...common, appUrl: route.runner.runner.url, sessionId: '', singleShot };
}
