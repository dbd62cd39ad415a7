import { NotLeaseHolderError, StaleLeaseError } from './lease-errors';
import type { LeaseElector } from './lease-elector';

/** One Redis command: its name, then its arguments (the key first). */
export type FencedCommand = readonly [name: string, ...args: (string | number)[]];

/**
 * Runs `commands` atomically in Redis only if the lease is still exactly this process's holding and
 * no higher token has written before (one Lua script: the check and the writes cannot interleave with
 * a takeover). Returns the commands' replies in order.
 *
 * Throws {@link NotLeaseHolderError} without calling Redis when this process does not hold the lease
 * (or its renew deadline passed), and {@link StaleLeaseError} when Redis refuses the token; in both
 * cases nothing was written. The commands run on the single Redis the project deploys (not Cluster).
 */
export async function fencedExec(
  elector: LeaseElector,
  commands: readonly FencedCommand[],
  wallClock: () => number = Date.now,
): Promise<unknown[]> {
  const holding = elector.holding();
  if (holding === undefined) throw new NotLeaseHolderError(elector.keys.lease);
  const { keys } = elector;
  const reply = await elector.redis.sandboxLeaseFencedExec(
    keys.lease,
    keys.fence,
    keys.log,
    holding.value,
    holding.token,
    `${holding.holderId} ${wallClock()}`,
    LOG_LENGTH,
    JSON.stringify(commands.map((command) => command.map(String))),
  );
  if (reply[0] === 'stale') throw new StaleLeaseError(keys.lease, holding.token, reply[1]);
  return reply[1];
}

/** Entries kept in the fence's writer log (one per holder that wrote). */
const LOG_LENGTH = 100;

/** One entry of the fence's writer log: which token (and holder) first wrote when. */
export interface FenceLogEntry {
  token: number;
  holderId: string;
  at: number;
}

/** The fence's writer log, oldest first (for operators and tests). */
export async function readFenceLog(elector: Pick<LeaseElector, 'keys' | 'redis'>): Promise<FenceLogEntry[]> {
  const lines = await elector.redis.lrange(elector.keys.log, 0, -1);
  return lines.reverse().map((line) => {
    const [token = '0', holderId = '', at = '0'] = line.split(' ');
    return { token: Number(token), holderId, at: Number(at) };
  });
}
