import { DRAIN_STEPS_QUEUE, type DrainRecord } from '@sandbox/protocol';
import { createWorker, type TypedWorker, type WorkerDeps } from '@sandbox/queue';
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { DrainEvent } from '../machine/drain-machine';
import type { Drains } from '../machine/drains';
import { ReplacementError, type OrchestratorDriver } from '../drivers/orchestrator-driver';
import type { AdapterCommands, CommandState } from './adapter-commands';
import type { SessionsSource } from './sessions-view.reader';

/** What the steps work with. */
export interface StepDeps {
  drains: Drains;
  commands: AdapterCommands;
  sessions: SessionsSource;
  driver: OrchestratorDriver;
  logger: Logger;
  now: () => number;
  pollMs: number;
  nodeReadyTimeoutMs: number;
  /** A withdraw-all or cancel-sessions the adapter has not completed after this long fails the drain. */
  adapterCommandTimeoutMs: number;
  /** A resume the adapter has not completed after this long ends the drain `failed`. */
  resumeTimeoutMs: number;
}

/** Looks again later: the job goes back to delayed without spending an attempt. */
async function pollLater(job: Job, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + Math.max(10, ms), job.token);
  throw new DelayedError();
}

/** The drain, if it is still in `phase`; otherwise the step has nothing to do (a retry, a late job). */
async function inPhase(deps: StepDeps, drainId: string, phase: DrainRecord['phase']) {
  const record = await deps.drains.get(drainId);
  return record?.phase === phase ? record : undefined;
}

const deadlinePassed = (deps: StepDeps, record: DrainRecord) => deps.now() >= Date.parse(record.deadline);

/** When the drain entered its current phase. */
const phaseSince = (record: DrainRecord) => Date.parse(record.history.at(-1)?.at ?? record.createdAt);

async function followCommand(
  deps: StepDeps,
  job: Job,
  drainId: string,
  state: CommandState,
  done: (s: Extract<CommandState, { state: 'done' }>) => DrainEvent,
) {
  if (state.state === 'done') await deps.drains.apply(drainId, done(state));
  else if (state.state === 'failed')
    await deps.drains.apply(drainId, { type: 'failed', reason: state.reason });
  else await pollLater(job, deps.pollMs);
}

/**
 * Fails the drain when the adapter has left a command pending too long (it is down or cannot reach
 * Node): the operator learns it in minutes, not at the end of the window, and Node is never replaced
 * behind runners whose withdrawal nobody confirmed. The resume that follows outranks the pending
 * command at the adapter, so a late run of it undoes nothing.
 */
async function commandTimedOut(
  deps: StepDeps,
  record: DrainRecord,
  name: 'withdraw-all' | 'cancel-sessions',
  state: CommandState,
): Promise<boolean> {
  if (state.state !== 'pending' || deps.now() - phaseSince(record) < deps.adapterCommandTimeoutMs)
    return false;
  const reason = `the adapter did not complete ${name} within ${deps.adapterCommandTimeoutMs} ms (is it running and reaching Node?)`;
  await deps.drains.apply(record.id, { type: 'failed', reason });
  return true;
}

async function withdraw(deps: StepDeps, drainId: string, job: Job): Promise<void> {
  const record = await inPhase(deps, drainId, 'withdrawing');
  if (record === undefined) return;
  if (deadlinePassed(deps, record)) {
    await deps.drains.apply(drainId, { type: 'deadline' });
    return;
  }
  const state = await deps.commands.check('withdraw-all', drainId);
  if (await commandTimedOut(deps, record, 'withdraw-all', state)) return;
  await followCommand(deps, job, drainId, state, ({ result }) => ({ type: 'withdrawn', result }));
}

async function waitSessions(deps: StepDeps, drainId: string, job: Job): Promise<void> {
  const record = await inPhase(deps, drainId, 'draining');
  if (record === undefined) return;
  if (deadlinePassed(deps, record)) {
    await deps.drains.apply(drainId, { type: 'deadline' });
    return;
  }
  const untilDeadline = Date.parse(record.deadline) - deps.now();
  try {
    const reading = await deps.sessions();
    if (!reading.known) {
      deps.logger.warn({ drainId, reason: reading.reason }, 'sessions at Node unknown; waiting');
      await deps.drains.apply(drainId, { type: 'sessions-unknown' });
      return await pollLater(job, Math.min(deps.pollMs, untilDeadline));
    }
    const applied = await deps.drains.apply(drainId, { type: 'sessions', sessions: reading.sessions });
    if (applied.kind !== 'ok' || applied.record.phase !== 'draining') return;
    const quiet = applied.record.quietSince;
    const untilQuiet = quiet === null ? deps.pollMs : Date.parse(quiet) + record.quietPeriodMs - deps.now();
    await pollLater(job, Math.min(deps.pollMs, untilDeadline, Math.max(untilQuiet, 10)));
  } catch (error) {
    if (error instanceof DelayedError) throw error;
    deps.logger.warn({ err: error, drainId }, 'cannot read the sessions at Node; looking again');
    await pollLater(job, Math.min(deps.pollMs, untilDeadline));
  }
}

async function cancel(deps: StepDeps, drainId: string, job: Job): Promise<void> {
  const record = await inPhase(deps, drainId, 'cancelling');
  if (record === undefined) return;
  const state = await deps.commands.check('cancel-sessions', drainId);
  if (await commandTimedOut(deps, record, 'cancel-sessions', state)) return;
  await followCommand(deps, job, drainId, state, ({ result }) => ({ type: 'cancelled', result }));
}

async function replace(deps: StepDeps, drainId: string): Promise<void> {
  const record = await inPhase(deps, drainId, 'replacing');
  if (record === undefined) return;
  const started = await deps.drains.apply(drainId, { type: 'replace-started' });
  const restartedAt = started.kind === 'ok' ? started.record.replacement?.startedAt : undefined;
  if (restartedAt === undefined) return;
  try {
    await deps.driver.replace({ drainId, target: record.target, restartedAt });
  } catch (error) {
    if (!(error instanceof ReplacementError)) throw error;
    await deps.drains.apply(drainId, { type: 'failed', reason: error.message });
    return;
  }
  await deps.drains.apply(drainId, { type: 'replaced' });
}

async function waitNode(deps: StepDeps, drainId: string, job: Job): Promise<void> {
  const record = await inPhase(deps, drainId, 'awaiting-node');
  if (record === undefined) return;
  const restartedAt = record.replacement?.startedAt ?? record.createdAt;
  const readiness = await deps.driver.readiness({ drainId, target: record.target, restartedAt });
  if (readiness.ready) {
    await deps.drains.apply(drainId, { type: 'node-ready' });
    return;
  }
  const since = Date.parse(record.replacement?.completedAt ?? record.history.at(-1)?.at ?? record.createdAt);
  if (deps.now() - since >= deps.nodeReadyTimeoutMs) {
    const reason = `the new Node was not ready within ${deps.nodeReadyTimeoutMs} ms: ${readiness.reason}`;
    await deps.drains.apply(drainId, { type: 'failed', reason });
    return;
  }
  await pollLater(job, deps.pollMs);
}

async function resume(deps: StepDeps, drainId: string, job: Job): Promise<void> {
  const record = await inPhase(deps, drainId, 'resuming');
  if (record === undefined) return;
  // Resuming is how every drain ends, failed ones too: a failed command is run again until it takes,
  // and that re-queueing is also what leaves the resume waiting for the adapter at the bound.
  const state = await deps.commands.check('resume', drainId, { retryFailed: true });
  if (state.state === 'pending' && deps.now() - phaseSince(record) >= deps.resumeTimeoutMs) {
    const reason = `the adapter did not complete resume within ${deps.resumeTimeoutMs} ms; it stays queued and registers the runners again once the adapter runs it`;
    await deps.drains.apply(drainId, { type: 'resume-timed-out', reason });
    return;
  }
  await followCommand(deps, job, drainId, state, ({ result }) => ({ type: 'resumed', result }));
}

/** The `drain-steps` worker: one handler per phase, plus the deadline. */
export function createDrainStepsWorker(deps: StepDeps, worker: WorkerDeps): TypedWorker {
  return createWorker(
    DRAIN_STEPS_QUEUE,
    {
      withdraw: ({ drainId }, job) => withdraw(deps, drainId, job),
      'wait-sessions': ({ drainId }, job) => waitSessions(deps, drainId, job),
      'window-expired': async ({ drainId }) => void (await deps.drains.apply(drainId, { type: 'deadline' })),
      cancel: ({ drainId }, job) => cancel(deps, drainId, job),
      'replace-orchestrator': ({ drainId }) => replace(deps, drainId),
      'wait-node': ({ drainId }, job) => waitNode(deps, drainId, job),
      resume: ({ drainId }, job) => resume(deps, drainId, job),
    },
    worker,
  );
}
