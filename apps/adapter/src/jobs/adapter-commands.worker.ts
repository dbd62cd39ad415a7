import { ADAPTER_COMMANDS_QUEUE } from '@sandbox/protocol';
import { createWorker, type TypedWorker, type WorkerDeps } from '@sandbox/queue';
import { applyDrainCommand, type DrainCommandDeps } from '../registrations/drain/drain-commands';

/**
 * Consumes `adapter-commands` (from drain-controller), one at a time. A job completes when the
 * command shows at Node, with an `AdapterCommandResult` as its return value; if it does not in
 * time, the job fails and BullMQ retries it (every command is idempotent).
 */
export function createAdapterCommandsWorker(commands: DrainCommandDeps, deps: WorkerDeps): TypedWorker {
  return createWorker(
    ADAPTER_COMMANDS_QUEUE,
    {
      'withdraw-all': (command) => applyDrainCommand('withdraw-all', command, commands),
      'cancel-sessions': (command) => applyDrainCommand('cancel-sessions', command, commands),
      resume: (command) => applyDrainCommand('resume', command, commands),
    },
    { ...deps, concurrency: 1 },
  );
}
