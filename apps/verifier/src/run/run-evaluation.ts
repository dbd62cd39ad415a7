import { createHash, randomBytes } from 'node:crypto';
import type { RunEvaluation } from '@sandbox/protocol';
import type { ServiceLogger } from '@sandbox/service-kit';
import { pickRunner } from '../node/discovery';
import { reserveSession, type NodeSession } from '../node/node-session';
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

async function measure(context: StepContext, results: Measurements): Promise<void> {
  results.latency = await measureLatency(context);
  results.download = await measureDownload(context);
  results.upload = await measureUpload(context);
  results.hashRate = await measureHashRate(context, context.plan.runTimeoutMs);
}

/**
 * One evaluation of one runner, as a paying client of Node: reserve a paid session, run the plan with
 * a fresh seed, always stop the session. Never throws: every failure becomes the record's fault.
 */
export async function runEvaluation(job: RunEvaluation, deps: RunDeps): Promise<RunRecord> {
  const seed = (deps.newSeed ?? (() => randomBytes(32)))();
  const record: RunRecord = {
    job,
    startedAt: deps.wallNow(),
    finishedAt: 0,
    runner: undefined,
    sessionId: null,
    seedCommitment: createHash('sha256').update(seed).digest('hex'),
    results: { latency: null, download: null, upload: null, hashRate: null },
    reliability: new ReliabilityCounter(),
    fault: undefined,
  };
  const runController = new AbortController();
  const deadline = setTimeout(() => runController.abort('deadline'), deps.plan.runTimeoutMs);
  const onStop = () => runController.abort('stopping');
  deps.stopSignal?.addEventListener('abort', onStop, { once: true });
  let paymentFault: RunFault | undefined;
  let session: NodeSession | undefined;
  let stopPayments: (() => Promise<void>) | undefined;
  try {
    record.runner = await pickRunner(deps.nodeUrl, job.target, runDeps(deps, record));
    session = await reserveSession(record.runner, {
      ...runDeps(deps, record),
      signer: deps.signer,
      logger: deps.logger,
    });
    record.sessionId = session.sessionId;
    stopPayments = startPayments(session, deps, (fault) => {
      paymentFault ??= fault;
    });
    await measure(stepContext(session, seed, deps, record, runController.signal), record.results);
  } catch (error) {
    record.fault =
      error instanceof RunFault ? error : platformFault('verifier-error', 'the run failed', error);
  } finally {
    clearTimeout(deadline);
    deps.stopSignal?.removeEventListener('abort', onStop);
    await stopPayments?.();
    await session?.stop();
    seed.fill(0);
  }
  // A failed top-up releases the session, so whatever failed after it is its consequence; so does
  // whatever failed once the run was cut short by its deadline or by the verifier stopping.
  if (record.fault && runController.signal.aborted) record.fault = abortFault(runController.signal.reason);
  else if (paymentFault && record.fault) record.fault = paymentFault;
  record.finishedAt = deps.wallNow();
  return record;
}

function abortFault(reason: unknown): RunFault {
  if (reason === 'stopping') return platformFault('verifier-stopping', 'the verifier stopped during the run');
  return targetFault('run-timeout', 'the run exceeded its time limit', 'timeout');
}

function runDeps(deps: RunDeps, record: RunRecord) {
  return { timeoutMs: deps.requestTimeoutMs, reliability: record.reliability };
}

function stepContext(
  session: NodeSession,
  seed: Uint8Array,
  deps: RunDeps,
  record: RunRecord,
  runSignal: AbortSignal,
): StepContext {
  return {
    appUrl: session.appUrl,
    sessionId: session.sessionId,
    seed,
    plan: deps.plan,
    reliability: record.reliability,
    runSignal,
    requestTimeoutMs: deps.requestTimeoutMs,
    now: deps.monoNow,
  };
}
