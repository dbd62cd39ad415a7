import type { Redis } from 'ioredis';
import { fencedExec } from './fenced-exec';
import type { LeaseElector, LeaseHolding } from './lease-elector';
import { NotLeaseHolderError } from './lease-errors';

/** The holding, or {@link NotLeaseHolderError} when this process does not hold the lease now. */
export function requireHolding(elector: Pick<LeaseElector, 'holding' | 'keys'>): LeaseHolding {
  const holding = elector.holding();
  if (holding === undefined) throw new NotLeaseHolderError(elector.keys.lease);
  return holding;
}

type Method = (...args: never[]) => unknown;

/**
 * `target` with each named method checking the holding first (throwing {@link NotLeaseHolderError}
 * when this process does not hold the lease), for actions outside Redis the fence cannot check
 * (starting a sandbox, a heartbeat to Node) and as a fast local refusal before Redis writes.
 */
export function guardMethods<T extends object, K extends keyof T>(
  target: T,
  elector: Pick<LeaseElector, 'holding' | 'keys'>,
  names: readonly K[],
): T {
  const guarded = Object.create(target) as T;
  for (const name of names) {
    const method = target[name] as unknown as Method;
    (guarded as Record<K, Method>)[name] = (...args: never[]) => {
      requireHolding(elector);
      return method.apply(target, args);
    };
  }
  return guarded;
}

/** Acts kept in a lease's act list. */
const ACT_LOG_LENGTH = 1_000;

/** Keys a holder's checkpoints write, beside the lease's own. */
export function checkpointKeys(elector: { keys: { lease: string } }) {
  return {
    /** Hash: `token`, `holder`, `act`, `at` of the latest checkpoint (who is active, seen from Redis). */
    active: `${elector.keys.lease}:active`,
    /** List, newest first: `"<token> <epoch ms> <act>"` of the last 1000 checkpoints. */
    acts: `${elector.keys.lease}:acts`,
  };
}

/**
 * Records one unit of the holder's work (a reconcile pass, a heartbeat round, a delivery) through the
 * fence, before the work acts: Redis refuses it with `StaleLeaseError` once another process holds the
 * lease, so a holder that missed its loss stops at its next unit of work. The act list is what an
 * operator (or a test) reads to see that tokens only increase and never interleave.
 */
export async function fencedCheckpoint(
  elector: LeaseElector,
  act: string,
  wallClock: () => number = Date.now,
): Promise<void> {
  const holding = requireHolding(elector);
  const keys = checkpointKeys(elector);
  const at = wallClock();
  await fencedExec(
    elector,
    [
      ['HSET', keys.active, 'token', holding.token, 'holder', holding.holderId, 'act', act, 'at', at],
      ['LPUSH', keys.acts, `${holding.token} ${at} ${act}`],
      ['LTRIM', keys.acts, 0, ACT_LOG_LENGTH - 1],
    ],
    wallClock,
  );
}

/** One recorded checkpoint. */
export interface LeaseAct {
  token: number;
  at: number;
  act: string;
}

/** The recorded checkpoints of the lease at `leaseKey`, oldest first. */
export async function readLeaseActs(redis: Pick<Redis, 'lrange'>, leaseKey: string): Promise<LeaseAct[]> {
  return parseLeaseActs(await redis.lrange(checkpointKeys({ keys: { lease: leaseKey } }).acts, 0, -1));
}

/** Lines of an act list (newest first, as stored) as acts, oldest first. */
export function parseLeaseActs(lines: readonly string[]): LeaseAct[] {
  return [...lines].reverse().map((line) => {
    const [token = '0', at = '0', ...act] = line.split(' ');
    return { token: Number(token), at: Number(at), act: act.join(' ') };
  });
}
