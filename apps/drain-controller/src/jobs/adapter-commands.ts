import {
  AdapterCommandResultSchema,
  type ADAPTER_COMMANDS_QUEUE,
  type AdapterCommandResult,
  type JobName,
} from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';

type CommandName = JobName<typeof ADAPTER_COMMANDS_QUEUE>;

/** Where one adapter command stands. */
export type CommandState =
  | { state: 'done'; result: AdapterCommandResult }
  | { state: 'failed'; reason: string }
  | { state: 'pending' };

/** The adapter's commands, sent once per drain (deterministic job ids) and then looked at. */
export interface AdapterCommands {
  /** Sends the command (again: a no-op) and reports its state. `retryFailed` re-runs a failed one. */
  check(name: CommandName, drainId: string, options?: { retryFailed?: boolean }): Promise<CommandState>;
}

export const commandJobId = (drainId: string, name: CommandName): string => `${drainId}.${name}`;

export function createAdapterCommands(deps: {
  producer: Producer<typeof ADAPTER_COMMANDS_QUEUE>;
  now: () => number;
}): AdapterCommands {
  const { producer } = deps;
  return {
    async check(name, drainId, options = {}) {
      const jobId = commandJobId(drainId, name);
      await producer.add(name, { drainId, requestedAt: new Date(deps.now()).toISOString() }, { jobId });
      const state = await producer.queue.getJobState(jobId);
      if (state === 'completed') {
        const finished = await producer.queue.getJob(jobId);
        const parsed = AdapterCommandResultSchema.safeParse(finished?.returnvalue);
        if (parsed.success) return { state: 'done', result: parsed.data };
        return { state: 'failed', reason: `the adapter's ${name} result is malformed` };
      }
      if (state === 'failed') {
        const failed = await producer.queue.getJob(jobId);
        if (options.retryFailed === true) {
          await failed?.retry('failed');
          return { state: 'pending' };
        }
        return { state: 'failed', reason: `adapter ${name} failed: ${failed?.failedReason ?? 'unknown'}` };
      }
      return { state: 'pending' };
    },
  };
}
