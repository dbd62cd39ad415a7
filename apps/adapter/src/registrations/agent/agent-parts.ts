import type { Logger } from 'pino';
import { BeatTimer } from './beat-timer';
import { CallStats } from '../node/call-stats';
import { createPersister, type Persister } from '../state/persister';
import type { RegistrationRecord } from '../state/registration-record';
import type { AgentDeps } from './runner-agent';
import { SessionTracker } from '../sessions/session-tracker';

/** The parts of a `RunnerAgent` that need no reference to the agent itself beyond two callbacks. */
export interface AgentParts {
  logger: Logger;
  tracker: SessionTracker;
  persister: Persister;
  stats: CallStats;
  timer: BeatTimer;
}

/** Builds a registration's session tracker, Redis writer, call statistics and place in the scheduler. */
export function createAgentParts(
  deps: AgentDeps,
  record: RegistrationRecord,
  callbacks: { onSessionsChanged(): void; run(): Promise<void> },
): AgentParts {
  const { instanceId } = record.instance;
  const logger = deps.logger.child({ instanceId, runnerId: record.runnerId });
  const tracker = new SessionTracker(
    {
      instanceId,
      runnerId: record.runnerId,
      publisher: deps.publisher,
      now: deps.now,
      onChange: callbacks.onSessionsChanged,
      onPublished: (event, source) => deps.metrics.sessionEvent(event, source),
    },
    record,
  );
  const persister = createPersister({
    write: () => deps.save(structuredClone({ ...record, ...tracker.snapshot() })),
    erase: () => deps.erase(instanceId),
    logger,
    schedule: deps.schedule,
  });
  const stats = new CallStats({ now: deps.now, metrics: deps.metrics, logger });
  const timer = new BeatTimer({
    key: instanceId,
    scheduler: deps.scheduler,
    now: deps.now,
    random: deps.random,
    run: callbacks.run,
  });
  return { logger, tracker, persister, stats, timer };
}
