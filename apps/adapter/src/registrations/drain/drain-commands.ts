import type { AdapterCommand, AdapterCommandResult, AdapterDrainMode } from '@sandbox/protocol';
import type { Schedule } from '@sandbox/service-kit';
import type { RunnerManager } from '../runner-manager';

/** The commands of the `adapter-commands` queue. */
export type DrainCommandName = AdapterCommandResult['command'];

const MODE: Record<DrainCommandName, AdapterDrainMode> = {
  'withdraw-all': 'withdrawn',
  'cancel-sessions': 'cancelled',
  resume: 'open',
};
/** Order of the commands within one drain: a retried earlier command never undoes a later one. */
const RANK: Record<AdapterDrainMode, number> = { withdrawn: 1, cancelled: 2, open: 3 };

/** Dependencies of {@link applyDrainCommand}. */
export interface DrainCommandDeps {
  manager: RunnerManager;
  now: () => number;
  schedule: Schedule;
  /** How long the command may take to show at Node before the job fails (and is retried). */
  timeoutMs: number;
  /** @defaultValue 100 */
  pollMs?: number;
  /** Aborted when the adapter shuts down: a waiting command then fails and BullMQ retries it later. */
  signal?: AbortSignal;
}

/** The command did not take effect at Node in time; the job is retried. */
export class CommandNotSettledError extends Error {
  override readonly name = 'CommandNotSettledError';
}

/**
 * Applies a drain command idempotently: sets the drain mode (unless a later command of the same
 * drain already ran), has every registration follow it at once, and resolves when Node shows the
 * result (capacities capped, idle runners unregistered, or everything registered again).
 */
export async function applyDrainCommand(
  name: DrainCommandName,
  command: AdapterCommand,
  deps: DrainCommandDeps,
): Promise<AdapterCommandResult> {
  const { manager } = deps;
  const since = deps.now();
  const current = manager.drainStatus;
  const superseded = current.drainId === command.drainId && RANK[current.mode] > RANK[MODE[name]];
  if (!superseded && (current.mode !== MODE[name] || current.drainId !== command.drainId)) {
    await manager.setDrain({
      mode: MODE[name],
      drainId: command.drainId,
      since: new Date(since).toISOString(),
    });
  } else {
    for (const agent of manager.commandable()) agent.poke();
  }
  await waitSettled(deps, since);
  return summarize(name, command, manager, deps.now());
}

async function waitSettled(deps: DrainCommandDeps, since: number): Promise<void> {
  const deadline = since + deps.timeoutMs;
  for (;;) {
    const agents = deps.manager.commandable();
    const pending = agents.filter((agent) => !agent.settled(since)).length;
    if (pending === 0) return;
    if (deps.signal?.aborted === true) throw new CommandNotSettledError('the adapter is shutting down');
    if (deps.now() >= deadline) {
      throw new CommandNotSettledError(
        `${pending} of ${agents.length} registrations not settled at Node yet`,
      );
    }
    await new Promise<void>((resolve) => deps.schedule(resolve, deps.pollMs ?? 100));
  }
}

function summarize(
  name: DrainCommandName,
  command: AdapterCommand,
  manager: RunnerManager,
  now: number,
): AdapterCommandResult {
  const result: AdapterCommandResult = {
    command: name,
    drainId: command.drainId,
    runners: 0,
    registered: 0,
    capped: 0,
    unregistered: 0,
    activeSessions: 0,
    completedAt: new Date(now).toISOString(),
  };
  for (const agent of manager.commandable()) {
    const target = agent.target();
    result.runners += 1;
    if (target.kind === 'absent') result.unregistered += 1;
    else if (target.capped) {
      result.capped += 1;
      result.activeSessions += agent.tracker.count;
    } else result.registered += 1;
  }
  return result;
}
