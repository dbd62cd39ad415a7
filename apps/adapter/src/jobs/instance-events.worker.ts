import { INSTANCE_EVENTS_QUEUE } from '@sandbox/protocol';
import { createWorker, type TypedWorker, type WorkerDeps } from '@sandbox/queue';
import type { RunnerManager } from '../registrations/runner-manager';

/**
 * Consumes `instance-events`, one job at a time so that the events of an instance apply in order.
 * Each handler only records the intent (saved in Redis) and returns; the registration's agent
 * carries it out with Node and reports back on `session-events`.
 */
export function createInstanceEventsWorker(manager: RunnerManager, deps: WorkerDeps): TypedWorker {
  return createWorker(
    INSTANCE_EVENTS_QUEUE,
    {
      'instance-ready': (ready) => manager.addInstance(ready),
      'instance-withdraw': (withdraw) => manager.withdrawInstance(withdraw),
      'instance-gone': (gone) => manager.removeInstance(gone),
    },
    { ...deps, concurrency: 1 },
  );
}
