import { appendFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcessHandle } from '@sandbox/process';
import { startChildProcess, waitUntilReady } from '@sandbox/process';
import type { Redis } from 'ioredis';
import { percentile } from './bench-figure';
import { waitFor } from './wait-for';

/** One fenced act of a lease holder, as `@sandbox/lease`'s `fencedCheckpoint` stores it. */
export interface RecordedAct {
  token: number;
  at: number;
  act: string;
}

/**
 * Lines of a lease's act list (newest first, `"<token> <epoch ms> <act>"`) as acts, oldest first. Read
 * here from Redis directly: this library sits below the ones it tests.
 */
function parseActs(lines: readonly string[]): RecordedAct[] {
  return [...lines].reverse().map((line) => {
    const [token = '0', at = '0', ...act] = line.split(' ');
    return { token: Number(token), at: Number(at), act: act.join(' ') };
  });
}

/** One replica of a service, as a real process. */
export interface Replica {
  readonly holderId: string;
  readonly port: number;
  readonly child: ChildProcessHandle;
}

/** Short lease timings for two-replica tests and benches (the renew deadline 2/3 of the TTL, as by default). */
export const TEST_LEASE = { ttlMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 150 };

/**
 * Starts a service's `main.ts` as a replica on `port` (`node --import tsx`, in its own process group)
 * with exactly `env` plus its lease settings ({@link TEST_LEASE}) and no drain delay.
 */
export function startReplica(
  main: string,
  env: Record<string, string>,
  holderId: string,
  port: number,
): Replica {
  const child = startChildProcess(process.execPath, ['--import', 'tsx', main], {
    env: {
      DRAIN_DELAY_MS: '0',
      ...env,
      LEASE_HOLDER_ID: holderId,
      LEASE_TTL_MS: String(TEST_LEASE.ttlMs),
      LEASE_RENEW_DEADLINE_MS: String(TEST_LEASE.renewDeadlineMs),
      LEASE_RETRY_PERIOD_MS: String(TEST_LEASE.retryPeriodMs),
      PORT: String(port),
    },
    keepChars: 20_000,
  });
  return { holderId, port, child };
}

/** Options of {@link runLeaseRounds}. */
export interface LeaseRoundsOptions {
  /** Reads the lease and its act list. */
  redis: Redis;
  leaseKey: string;
  /** Starts a replica with `LEASE_HOLDER_ID=holderId` (resolves once it listens). */
  start(holderId: string): Promise<Replica>;
  /** Rounds, each ending the holder and waiting for the other replica to act. */
  rounds: number;
  /** Every n-th round pauses the holder (SIGSTOP) past the TTL instead of killing it. @defaultValue never */
  pauseEvery?: number;
  ttlMs: number;
  /** How long a takeover (or a start) may take. @defaultValue 60000 */
  timeoutMs?: number;
  /** Called after each round (progress lines). */
  onRound?: (round: number, takeoverMs: number) => void;
}

/** What {@link runLeaseRounds} saw. */
export interface LeaseRoundsResult {
  /** Per round: from the holder's end to the first fenced act of the next token. */
  takeoverMs: number[];
  /** How many rounds killed the holder (kill -9) and how many paused it. */
  kills: number;
  pauses: number;
  /** Every fenced act recorded during the run, in Redis order. */
  acts: RecordedAct[];
  /** Exit codes of paused holders after they were resumed (each must have given up). */
  resumedExits: (number | null)[];
}

/** `/readyz` status of a replica: 'ready' (active), 'standby', or another state. */
export async function replicaStatus(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
  return ((await response.json()) as { status: string }).status;
}

/** Waits until a replica answers `/readyz` with `standby` or `ready`. */
export function waitUntilServing(replica: Replica, timeoutMs = 60_000): Promise<void> {
  return waitUntilReady(
    replica.child,
    async () => ['standby', 'ready'].includes(await replicaStatus(replica.port)),
    { description: `${replica.holderId} to serve`, timeoutMs, intervalMs: 50 },
  );
}

/**
 * Two replicas of a service against one Redis: each round ends the current holder (kill -9, or a
 * SIGSTOP past the TTL and a SIGCONT), restarts it and measures the takeover from the service's fenced
 * acts. The caller checks the acts ({@link checkActs}) and stops the replicas it gets back.
 */
export async function runLeaseRounds(
  options: LeaseRoundsOptions,
): Promise<LeaseRoundsResult & { replicas: Replica[] }> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let generation = 0;
  const replicas = [await options.start(`r${generation++}`), await options.start(`r${generation++}`)];
  await Promise.all(replicas.map((replica) => waitUntilServing(replica, timeoutMs)));
  const acts: RecordedAct[] = [];
  let newest: string | undefined;
  const collect = async (): Promise<void> => {
    const lines = await options.redis.lrange(`${options.leaseKey}:acts`, 0, -1);
    const seen = newest === undefined ? lines.length : lines.indexOf(newest);
    newest = lines[0] ?? newest;
    acts.push(...parseActs(lines.slice(0, seen === -1 ? lines.length : seen)));
  };
  const currentToken = async () => {
    const value = await waitFor(() => options.redis.get(options.leaseKey), {
      description: 'a lease holder',
      timeoutMs,
    });
    const [token = '0', holderId = ''] = value.split(' ');
    return { token: Number(token), holderId };
  };
  const actedWith = (token: number) =>
    waitFor(
      async () => {
        await collect();
        return acts.find((act) => act.token > token);
      },
      { description: `an act with a token above ${token}`, timeoutMs, intervalMs: 20 },
    );
  const takeoverMs: number[] = [];
  const resumedExits: (number | null)[] = [];
  await actedWith(0);
  for (let round = 1; round <= options.rounds; round += 1) {
    const held = await currentToken();
    const index = replicas.findIndex((replica) => replica.holderId === held.holderId);
    const holder = replicas[index];
    if (holder === undefined) throw new Error(`lease held by ${held.holderId}, no replica of ours`);
    const pause = options.pauseEvery !== undefined && round % options.pauseEvery === 0;
    const endedAt = Date.now();
    if (pause) holder.child.signal('SIGSTOP');
    else await holder.child.kill();
    // A killed holder's replacement starts at once, as a Deployment's would, racing the takeover.
    const replacing = pause ? undefined : options.start(`r${generation++}`);
    const next = await actedWith(held.token);
    takeoverMs.push(next.at - endedAt);
    if (pause) {
      await sleep(options.ttlMs);
      holder.child.signal('SIGCONT');
      // It must notice, stop acting and exit (to come back as a standby).
      const exit = await Promise.race([holder.child.exited, sleep(timeoutMs).then(() => undefined)]);
      resumedExits.push(exit?.code ?? null);
      if (exit === undefined) await holder.child.kill();
    }
    const replacement = await (replacing ?? options.start(`r${generation++}`));
    replicas[index] = replacement;
    await waitUntilServing(replacement, timeoutMs);
    options.onRound?.(round, takeoverMs.at(-1) ?? NaN);
  }
  await collect();
  const pauses = resumedExits.length;
  return { takeoverMs, acts, resumedExits, replicas, kills: options.rounds - pauses, pauses };
}

/**
 * What the fence must guarantee, as seen in the acts: tokens never decrease in Redis order (once a
 * newer holder acted, no older one ever acted again: never two active at once). Returns the problems.
 */
export function checkActs(acts: readonly RecordedAct[]): string[] {
  const problems: string[] = [];
  for (let index = 1; index < acts.length; index += 1) {
    const before = acts[index - 1];
    const act = acts[index];
    if (before !== undefined && act !== undefined && act.token < before.token)
      problems.push(`act ${index} has token ${act.token} after token ${before.token}`);
  }
  return problems;
}

/**
 * Prints the run's summary line and, when `LEASE_REPORT_FILE` names a file, appends the run as a JSON
 * line there (the lease bench reads it).
 */
export async function reportLeaseRounds(
  service: string,
  result: LeaseRoundsResult,
  reportFile?: string,
): Promise<void> {
  const { takeoverMs } = result;
  process.stdout.write(
    `${service} lease: ${result.kills} kill -9, ${result.pauses} pauses, takeover p50 ${percentile(takeoverMs, 50)} ms, ` +
      `p99 ${percentile(takeoverMs, 99)} ms, max ${Math.max(...takeoverMs)} ms\n`,
  );
  if (reportFile === undefined || reportFile === '') return;
  const line = { service, kills: result.kills, pauses: result.pauses, takeoverMs, acts: result.acts.length };
  await appendFile(reportFile, `${JSON.stringify(line)}\n`);
}
