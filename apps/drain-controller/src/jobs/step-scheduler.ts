import type { DRAIN_STEPS_QUEUE, DrainPhase, DrainRecord, JobName } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';

type StepName = JobName<typeof DRAIN_STEPS_QUEUE>;

/** The one step job of each non-terminal phase. */
export const PHASE_STEP: Partial<Record<DrainPhase, StepName>> = {
  withdrawing: 'withdraw',
  draining: 'wait-sessions',
  cancelling: 'cancel',
  replacing: 'replace-orchestrator',
  'awaiting-node': 'wait-node',
  resuming: 'resume',
};

/**
 * Steps are retried (a fixed pause) for as long as it takes: a step only fails the drain through the
 * state machine, never by running out of attempts.
 */
const STEP_JOB_OPTIONS = { attempts: 1_000_000, backoff: { type: 'fixed', delay: 2_000 } } as const;

/** Deterministic job ids: adding a step twice (a retry, a restart) keeps one job. */
export const stepJobId = (drainId: string, step: StepName): string => `${drainId}.${step}`;
/** One deadline job per deadline: an extended drain gets a new one; the old one finds nothing to do. */
export const deadlineJobId = (drainId: string, deadline: string): string =>
  `${drainId}.window-expired.${Date.parse(deadline)}`;

/**
 * Enqueues the step of the drain's phase and, while the window runs, the deadline as a delayed job.
 * Idempotent; called after every change and for every active drain at start-up, which re-arms the
 * deadline from the stored value.
 */
export function createStepScheduler(deps: {
  producer: Producer<typeof DRAIN_STEPS_QUEUE>;
  now: () => number;
}) {
  return async (record: DrainRecord): Promise<void> => {
    const step = PHASE_STEP[record.phase];
    if (step === undefined) return;
    const data = { drainId: record.id };
    if (record.phase === 'withdrawing' || record.phase === 'draining') {
      const delay = Math.max(0, Date.parse(record.deadline) - deps.now());
      await deps.producer.add('window-expired', data, {
        ...STEP_JOB_OPTIONS,
        jobId: deadlineJobId(record.id, record.deadline),
        delay,
      });
    }
    await deps.producer.add(step, data, { ...STEP_JOB_OPTIONS, jobId: stepJobId(record.id, step) });
  };
}
