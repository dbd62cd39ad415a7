import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay } from '@sandbox/service-kit';
import { describeExit } from '@sandbox/process';
import { startProcess, type LineSink, type ManagedProcess, type ProcessSpec } from './managed-process';
import { introduceMember } from './member-roles';

/** How a crashed member is restarted: as Kubernetes restarts a container (CrashLoopBackOff). */
export interface RestartPolicy {
  /** Wait before the first restart; doubles with each crash in a row. @defaultValue 1_000 */
  initialMs: number;
  /** Longest wait between restarts. @defaultValue 30_000 */
  maxMs: number;
  /** A run this long counts as healthy: the next crash waits `initialMs` again. @defaultValue 60_000 */
  resetAfterMs: number;
}

/** A delay that ends early (rejecting) when `signal` aborts. */
export const abortableDelay = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal });

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialMs: 1_000,
  maxMs: 30_000,
  resetAfterMs: 60_000,
};

/** What a supervisor needs from the stack; clock and delay are injected so tests never sleep. */
export interface SupervisorDeps {
  sink: LineSink;
  /** One line of the stack's own. */
  say: (message: string) => void;
  policy: RestartPolicy;
  now: () => number;
  /** Resolves after `ms`, or rejects once `signal` aborts. */
  delay: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** A member kept running: restarted whenever it exits, until {@link SupervisedMember.stop}. */
export interface SupervisedMember {
  readonly spec: ProcessSpec;
  /** The first run's readiness: the stack starts the next member only after it. */
  readonly firstReady: Promise<void>;
  /** The current run's process id. */
  pid(): number | undefined;
  restarts(): number;
  /**
   * Replaces the current run with a new process on request (as a service manager restarts a daemon):
   * SIGTERM, SIGKILL after `graceMs`, then a new run at once. Not a crash: no backoff. Resolves once
   * the new run is started; a request while one is under way joins it.
   */
  restart(graceMs: number): Promise<void>;
  /** Cancels a pending restart and stops the current run. */
  stop(graceMs: number): Promise<void>;
}

/** Called with each run's process id as it starts (first run, crash restarts, requested restarts). */
export type LaunchHook = (pid: number | undefined) => void;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}s`;

/**
 * Starts `spec` and, once its first run is ready, restarts it whenever it exits: after `initialMs`,
 * doubling per crash in a row up to `maxMs`, back to `initialMs` after a run of `resetAfterMs`.
 */
export function superviseMember(
  spec: ProcessSpec,
  deps: SupervisorDeps,
  onLaunch: LaunchHook = () => undefined,
): SupervisedMember {
  const { name } = spec;
  const cancel = new AbortController();
  const launch = () => {
    const run = startProcess(spec, deps.sink);
    deps.sink(name, introduceMember(spec, run.pid));
    onLaunch(run.pid);
    return run;
  };
  let current: ManagedProcess = launch();
  let startedAt = deps.now();
  let restarts = 0;
  let crashesInARow = 0;
  let replacing: Promise<void> | undefined;

  const reportReadyAgain = (what: string) =>
    current.waitReady().then(
      () => deps.say(`${name} ready again${spec.banner ? ` at ${spec.banner}` : ''} (${what})`),
      (error: Error) => {
        // Stopping the stack ends a run that was still starting: nothing to report then.
        if (!cancel.signal.aborted) deps.say(`${name} ${what} not ready: ${error.message}`);
      },
    );

  function replace(graceMs: number): Promise<void> {
    if (cancel.signal.aborted) return Promise.resolve();
    replacing ??= (async () => {
      deps.say(`${name} restarting on request`);
      await current.stop(graceMs);
      if (cancel.signal.aborted) return;
      current = launch();
      startedAt = deps.now();
      void reportReadyAgain('restarted on request');
    })().finally(() => (replacing = undefined));
    return replacing;
  }

  async function keepRunning(): Promise<void> {
    while (!cancel.signal.aborted) {
      const exit = await current.exited;
      if (cancel.signal.aborted) return;
      // Stopped on request: the replacement is (being) started; watch that one.
      if (replacing) {
        await replacing;
        continue;
      }
      const ran = deps.now() - startedAt;
      crashesInARow = ran >= deps.policy.resetAfterMs ? 1 : crashesInARow + 1;
      const wait = backoffDelay(crashesInARow, { ...deps.policy, jitter: 'none' });
      deps.say(
        `${name} exited (${describeExit(exit)}) after ${seconds(ran)}; restarting in ${seconds(wait)} (restart ${restarts + 1})`,
      );
      const waited = await deps.delay(wait, cancel.signal).then(
        () => true,
        () => false,
      );
      if (!waited || cancel.signal.aborted) return;
      restarts += 1;
      current = launch();
      startedAt = deps.now();
      void reportReadyAgain(`restart ${restarts}`);
    }
  }

  const firstReady = current.waitReady();
  firstReady.then(keepRunning, () => undefined);
  return {
    spec,
    firstReady,
    pid: () => current.pid,
    restarts: () => restarts,
    restart: replace,
    async stop(graceMs) {
      cancel.abort();
      await replacing;
      await current.stop(graceMs);
    },
  };
}
