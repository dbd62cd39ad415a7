import type { Logger } from 'pino';
import type { SessionEventsPublisher } from '../../events/session-events.publisher';
import type { RegistrationRecord } from '../state/registration-record';
import type { RunnerTarget } from '../drain/runner-target';
import type { SessionTracker } from '../sessions/session-tracker';

/** What {@link reportAbsence} needs of a registration. */
export interface AbsenceContext {
  record: RegistrationRecord;
  tracker: SessionTracker;
  publisher: SessionEventsPublisher;
  now: () => number;
  logger: Logger;
  persist(): Promise<void>;
}

/** `done`, or the error that kept the report from being published (retried later). */
export type AbsenceOutcome = 'done' | { error: unknown };

/**
 * The runner is not registered with Node: publish what finishes that, after any pending session
 * releases. A withdrawal is acknowledged (`runner-withdrawn`), a refusal reported once
 * (`registration-failed`); a parked runner just waits for `resume`.
 */
export async function reportAbsence(
  then: Extract<RunnerTarget, { kind: 'absent' }>['then'],
  context: AbsenceContext,
): Promise<AbsenceOutcome> {
  const { record, publisher } = context;
  try {
    if (context.tracker.pendingCount > 0) await context.tracker.flushPending();
    const at = new Date(context.now()).toISOString();
    const { instanceId } = record.instance;
    if (then === 'withdraw') {
      await publisher.withdrawn({ instanceId, runnerId: record.runnerId, at });
      record.phase = 'withdrawn';
      context.logger.info('runner withdrawn');
      void context.persist();
    } else if (then === 'fail' && record.failure !== null && !record.failure.reported) {
      const { status, reason } = record.failure;
      await publisher.registrationFailed({ instanceId, runnerId: record.runnerId, status, reason, at });
      record.failure.reported = true;
      void context.persist();
    }
    return 'done';
  } catch (error) {
    return { error };
  }
}
