import type { FailureKind, RunEvaluation } from '@sandbox/protocol';
import { pickRunner } from '../node/discovery';
import { reserveSession, type NodeSession } from '../node/node-session';
import { platformFault, RunFault } from './faults';
import { evaluateOn, newRunRecord, type EvaluationRoute, type RunDeps } from './run-evaluation';
import type { RunRecord } from './run-record';

/** Tops the session up every interval; the first failure is kept, so it wins over what it causes. */
function startPayments(session: NodeSession, deps: RunDeps, onFault: (fault: RunFault) => void) {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      session.topUp().catch((error: unknown) => {
        onFault(
          error instanceof RunFault ? error : platformFault('payment-failed', 'topping up failed', error),
        );
      }),
    );
  }, deps.paymentIntervalMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** Receives each evaluation's record once it is final (a pass at once, the last one after the stop). */
export type OnRecord = (record: RunRecord) => Promise<void>;

/**
 * `count` evaluations of one runner in one paid Node session: discover, reserve and pay once, run the
 * plan `count` times (a fresh seed each), stop the session once. A single-shot runner has no session:
 * every request of the plan is its own paid call. The first failure ends the series:
 * the session may be what failed. Never throws: every failure becomes a record's fault.
 */
export async function runSession(
  job: RunEvaluation,
  count: number,
  deps: RunDeps,
  onRecord: OnRecord,
): Promise<void> {
  let current = newRunRecord(job, 1, count, deps);
  const counting = {
    request: () => current.record.reliability.request(),
    fail: (kind: FailureKind) => current.record.reliability.fail(kind),
  };
  const runDeps = { timeoutMs: deps.requestTimeoutMs, reliability: counting };
  let session: NodeSession | undefined;
  let paymentFault: RunFault | undefined;
  let stopPayments: (() => Promise<void>) | undefined;
  // The record not handed over yet: the one in progress, or the last one (stored after the stop).
  let pending: RunRecord | undefined = current.record;
  try {
    const runner = await pickRunner(deps.nodeUrl, job.target, runDeps);
    current.record.runner = runner;
    let route: EvaluationRoute = { mode: 'single-shot', runner };
    if (runner.runner.mode === 'persistent') {
      session = await reserveSession(runner, { ...runDeps, signer: deps.signer, logger: deps.logger });
      stopPayments = startPayments(session, deps, (fault) => (paymentFault ??= fault));
      route = { mode: 'persistent', session };
    }
    for (let index = 1; index <= count; index += 1) {
      if (index > 1) current = newRunRecord(job, index, count, deps);
      current.record.runner = runner;
      pending = current.record;
      await evaluateOn(route, current, deps);
      if (current.record.fault || paymentFault || deps.stopSignal?.aborted || index === count) break;
      // A store failure propagates (after the stop below): the job fails and BullMQ retries it.
      pending = undefined;
      await onRecord(current.record);
    }
  } catch (error) {
    if (!pending) throw error;
    pending.fault =
      error instanceof RunFault ? error : platformFault('verifier-error', 'the run failed', error);
    pending.finishedAt = deps.wallNow();
  } finally {
    current.seed.fill(0);
    await stopPayments?.();
    await session?.stop();
  }
  if (pending) await onRecord(settle(pending, paymentFault, deps));
}

/** Faults of a run cut short (its deadline, the verifier stopping): they explain what failed after. */
const CUT_SHORT = new Set(['run-timeout', 'verifier-stopping']);

/**
 * The last evaluation's final fault: a failed top-up makes Node release the session, so whatever
 * failed with it is its consequence (a pass measured despite it stands: every answer was checked).
 */
function settle(record: RunRecord, paymentFault: RunFault | undefined, deps: RunDeps) {
  if (record.fault && paymentFault && !CUT_SHORT.has(record.fault.reasonCode)) record.fault = paymentFault;
  if (record.finishedAt === 0) record.finishedAt = deps.wallNow();
  return record;
}

/** One evaluation in its own session (the record of a series of one). */
export async function runEvaluation(job: RunEvaluation, deps: RunDeps): Promise<RunRecord> {
  let result: RunRecord | undefined;
  await runSession(job, 1, deps, async (record) => {
    result = record;
  });
  if (!result) throw new Error('a session run always reports its record');
  return result;
}
