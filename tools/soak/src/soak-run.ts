import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { instanceManagerRoutes, InstanceListSchema } from '@sandbox/protocol';
import { DEFAULT_LEASE_TIMINGS } from '@sandbox/lease';
import { runFaults } from './fault-loop';
import { planFaults } from './fault-plan';
import type { InvariantTracker } from './invariant-tracker';
import { createPrng } from './prng';
import type { RecoveryTimer } from './recovery-timer';
import { callRoute } from './route-client';
import { flowLoop, holdLoop, type ClientTally } from './sdk-clients';
import { poolSizes, type SoakApp } from './soak-apps';
import type { FaultRecord } from './soak-report';
import type { SoakStack } from './soak-stack';
import { readSnapshot, type SnapshotSources } from './snapshot-reader';
import { unwholeReasons, type SystemSnapshot } from './system-snapshot';

/** Everything a run produced, for the finish (ledger, checks, report). */
export interface RunResult {
  records: FaultRecord[];
  tracker: InvariantTracker;
  recovery: RecoveryTimer;
  tally: ClientTally;
  drainDeadlinesMs: Set<number>;
  /** Pids of the members' last runs, taken just before the stop (the leftover check looks for them). */
  memberPids: Set<number>;
  clientPids: Set<number>;
  lastSnapshot?: SystemSnapshot;
}

export interface RunOptions {
  seed: number;
  durationMs: number;
  startMs: number;
  stack: SoakStack;
  apps: readonly SoakApp[];
  prefix: string;
  python: string;
  signal: AbortSignal;
  say: (message: string) => void;
}

const url = (port: number) => `http://127.0.0.1:${port}`;
const token = (file: string) => readFileSync(file, 'utf8').trim();

export function snapshotSources(stack: SoakStack): SnapshotSources {
  const { config } = stack;
  return {
    instanceManagerUrl: url(config.INSTANCE_MANAGER_PORT),
    adapterUrl: url(config.ADAPTER_PORT),
    drainControllerUrl: url(config.DRAIN_CONTROLLER_PORT),
    nodeMetricsUrl: url(config.NODE_SIM_METRICS_PORT),
    readTokenFile: stack.secrets.readToken,
    members: stack.members,
  };
}

/** Whole: nothing missing and no drain under way (a drain withdraws registrations on purpose). */
export function wholeNow(snapshot: SystemSnapshot, apps: readonly SoakApp[]): string[] {
  const reasons = unwholeReasons(snapshot, poolSizes(apps));
  const drains = snapshot.drains?.filter((d) => !['done', 'aborted', 'failed'].includes(d.phase)) ?? [];
  if (snapshot.drains === undefined) reasons.push('drains unreadable');
  if (drains.length > 0) reasons.push('drain under way');
  return reasons;
}

/** Snapshots every 2 s: live invariant checks and fault recovery, until aborted. */
async function watchSystem(options: RunOptions, result: RunResult, stop: AbortSignal): Promise<void> {
  const sources = snapshotSources(options.stack);
  let lastReasons = '';
  while (!stop.aborted) {
    const snapshot = await readSnapshot(sources);
    result.lastSnapshot = snapshot;
    for (const drain of snapshot.drains ?? []) result.drainDeadlinesMs.add(drain.deadlineMs);
    const before = result.tracker.violations.length;
    result.tracker.observe(snapshot);
    for (const v of result.tracker.violations.slice(before))
      options.say(`VIOLATION ${v.invariant}: ${v.detail}`);
    const reasons = wholeNow(snapshot, options.apps);
    result.recovery.observe(snapshot.atMs, reasons);
    const text = reasons.length === 0 ? 'whole' : `not whole: ${reasons.join('; ')}`;
    if (text !== lastReasons) options.say(`system ${text}`);
    lastReasons = text;
    await sleep(2_000, undefined, { signal: stop }).catch(() => undefined);
  }
}

/**
 * The soak proper: clients and system watch start, the seed's faults are injected on time, and after
 * `durationMs` (or on abort) everything but the stack stops. The stack is still running on return.
 */
export async function runSoak(options: RunOptions, result: RunResult): Promise<void> {
  const { stack, seed } = options;
  const plan = planFaults(createPrng(seed), {
    durationMs: options.durationMs,
    members: [...stack.members.keys()],
    apps: options.apps.map((app) => app.name),
    leaseTtlMs: DEFAULT_LEASE_TIMINGS.ttlMs,
    drainEveryMs: Math.min(180_000, Math.max(60_000, options.durationMs / 3)),
  });
  options.say(`planned ${plan.length} faults (seed ${seed}); waiting for the system to be whole first`);
  const watchStop = new AbortController();
  const watching = watchSystem(options, result, watchStop.signal);
  await waitUntil(
    () => result.lastSnapshot !== undefined && wholeNow(result.lastSnapshot, options.apps).length === 0,
    300_000,
    options.signal,
  );
  const faultsFrom = Date.now();
  options.say('the soak clock starts: faults and clients begin');
  const end = new AbortController();
  const timer = setTimeout(() => end.abort(), options.durationMs);
  const signal = AbortSignal.any([end.signal, options.signal]);
  const injector = {
    stack,
    prefix: options.prefix,
    drainControllerUrl: url(stack.config.DRAIN_CONTROLLER_PORT),
    adminToken: () => token(stack.secrets.adminToken),
    instancesOf: async (app: string) =>
      InstanceListSchema.parse(
        await callRoute(
          url(stack.config.INSTANCE_MANAGER_PORT),
          token(stack.secrets.readToken),
          instanceManagerRoutes.listInstances,
          { query: { app } },
        ),
      ).instances,
    signal,
  };
  const loops = {
    startMs: faultsFrom,
    clockStartMs: options.startMs,
    seed,
    injector,
    records: result.records,
    recovery: result.recovery,
    say: options.say,
  };
  const clientRng = createPrng((seed ^ 0x5eed5eed) >>> 0);
  const clients = {
    python: options.python,
    nodeUrl: url(stack.config.NODE_SIM_PORT),
    apps: options.apps.filter((app) => app.sessions).map((app) => app.name),
    rng: clientRng,
    signal,
    livePids: result.clientPids,
  };
  await Promise.all([
    runFaults(
      plan.filter((f) => f.kind !== 'drain'),
      loops,
    ),
    runFaults(
      plan.filter((f) => f.kind === 'drain'),
      loops,
    ),
    flowLoop(clients, result.tally),
    holdLoop(clients, result.tally),
    new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
  ]);
  clearTimeout(timer);
  options.say(
    options.signal.aborted
      ? 'interrupted: faults and clients stopped'
      : 'soak time over: faults and clients stopped',
  );
  return waitForWhole(options, result, watchStop, watching);
}

/** Polls `done` every second until it holds, `timeoutMs` passes or `signal` aborts. */
async function waitUntil(done: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && !signal.aborted && Date.now() < deadline) await sleep(1_000);
}

/** After the faults: up to 3 min (20 s when interrupted) for the last recoveries, then the watch stops. */
async function waitForWhole(
  options: RunOptions,
  result: RunResult,
  watchStop: AbortController,
  watching: Promise<void>,
): Promise<void> {
  const deadline = Date.now() + (options.signal.aborted ? 20_000 : 180_000);
  while (Date.now() < deadline && result.recovery.pending().length > 0) await sleep(1_000);
  watchStop.abort();
  await watching;
}
