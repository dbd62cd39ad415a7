import { setTimeout as sleep } from 'node:timers/promises';
import { drainControllerRoutes, type InstanceResource } from '@sandbox/protocol';
import { runCommand } from '@sandbox/sandbox-local';
import type { PlannedFault } from './fault-plan';
import type { Prng } from './prng';
import { callRoute } from './route-client';
import type { SoakStack } from './soak-stack';

/** What injecting a fault needs from the run. */
export interface InjectorDeps {
  stack: Pick<SoakStack, 'members' | 'refuseRestart' | 'allowRestart'>;
  /** Names the instances' containers. */
  prefix: string;
  drainControllerUrl: string;
  adminToken: () => string;
  /** The app's instances now (instance-manager). */
  instancesOf: (app: string) => Promise<InstanceResource[]>;
  /** Picks the instance to kill: drawn from the fault's own PRNG, so the plan stays the seed's. */
  rng: Prng;
  /** Aborted on Ctrl-C: a SIGSTOP or refusal in progress ends early (SIGCONT, gate removed). */
  signal: AbortSignal;
}

/** How an injection went: when the fault ended (recovery is timed from then), or why it was skipped. */
export type Injection = { endedAtMs: number; detail: string } | { skipped: string };

/** The whole process group of a member's current run (its children die with it, as a container's). */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  process.kill(-pid, signal);
}

const pause = (ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

async function memberFault(fault: PlannedFault, deps: InjectorDeps): Promise<Injection> {
  const member = deps.stack.members.get(fault.target);
  const pid = member?.pid();
  if (member === undefined || pid === undefined) return { skipped: `${fault.target} has no running process` };
  if (fault.kind === 'kill-member') {
    signalGroup(pid, 'SIGKILL');
    return { endedAtMs: Date.now(), detail: `kill -9 pid ${pid}` };
  }
  if (fault.kind === 'stop-member') {
    const stoppedAt = Date.now();
    signalGroup(pid, 'SIGSTOP');
    await pause(fault.durationMs, deps.signal);
    signalGroup(pid, 'SIGCONT');
    return {
      endedAtMs: Date.now(),
      detail: `SIGSTOP pid ${pid}, SIGCONT after ${Date.now() - stoppedAt} ms`,
    };
  }
  const refusedAt = Date.now();
  deps.stack.refuseRestart(fault.target);
  try {
    signalGroup(pid, 'SIGKILL');
    await pause(fault.durationMs, deps.signal);
  } finally {
    deps.stack.allowRestart(fault.target);
  }
  return {
    endedAtMs: Date.now(),
    detail: `kill -9 pid ${pid}, restarts refused for ${Date.now() - refusedAt} ms`,
  };
}

async function killAppProcess(fault: PlannedFault, deps: InjectorDeps): Promise<Injection> {
  const running = (await deps.instancesOf(fault.target)).filter((i) => ['ready', 'taken'].includes(i.state));
  if (running.length === 0) return { skipped: `no running instance of ${fault.target}` };
  const instance = deps.rng.pick(running);
  // SIGKILL to the app's process inside the gVisor sandbox (podman delivers it through runsc).
  const result = await runCommand(
    'podman',
    ['kill', '--signal', 'KILL', `${deps.prefix}-${instance.instanceId}`],
    {
      allowFailure: true,
    },
  );
  if (result.exitCode !== 0) return { skipped: `podman kill failed: ${result.stderr.trim().slice(0, 200)}` };
  return { endedAtMs: Date.now(), detail: `killed the app process of instance ${instance.instanceId}` };
}

async function startDrain(deps: InjectorDeps): Promise<Injection> {
  try {
    const drain = await callRoute(
      deps.drainControllerUrl,
      deps.adminToken(),
      drainControllerRoutes.createDrain,
      {
        body: { reason: 'soak', target: { restart: true }, window: '90s', quietPeriod: '0s' },
      },
    );
    return { endedAtMs: Date.now(), detail: `drain ${drain.id} started, deadline ${drain.deadline}` };
  } catch (error) {
    return { skipped: `drain not started: ${(error as Error).message}` };
  }
}

/** Injects one planned fault; resolves once it is over (a SIGSTOP after its SIGCONT). */
export async function injectFault(fault: PlannedFault, deps: InjectorDeps): Promise<Injection> {
  if (fault.kind === 'drain') return startDrain(deps);
  if (fault.kind === 'kill-app-process') return killAppProcess(fault, deps);
  return memberFault(fault, deps);
}
