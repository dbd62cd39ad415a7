import type { StackConsole } from './console';
import type { ProcessSpec } from './managed-process';
import { listenForRestartRequests, recordChildPid } from './restart-on-request/restart-listener';
import { settleInstances, type StackInstances } from './stack-instances';
import {
  abortableDelay,
  DEFAULT_RESTART_POLICY,
  superviseMember,
  type RestartPolicy,
  type SupervisedMember,
} from './supervisor';

/** Options of {@link runStack}. */
export interface RunStackOptions {
  console: StackConsole;
  /**
   * Emits SIGINT, SIGTERM or SIGHUP to stop the stack, and the restart signal for members that restart
   * on request (the process, in main.ts).
   */
  signals: NodeJS.EventEmitter;
  /** Written for `request-restart.ts`. @defaultValue process.pid */
  pid?: number;
  /** The app instances, when the stack runs the instance-manager. */
  instances?: StackInstances;
  /** Leave the app instances running on stop (the next start adopts them). @defaultValue false */
  keepInstances?: boolean;
  /** @defaultValue DEFAULT_RESTART_POLICY */
  restartPolicy?: RestartPolicy;
  /** SIGTERM to SIGKILL. @defaultValue 15_000 */
  stopGraceMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
  /** @defaultValue abortableDelay */
  delay?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called with each member as its supervision starts (a soak signals members by their pids). */
  onMember?: (member: SupervisedMember) => void;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Starts the members in order, each once the previous is ready, and keeps them running (a member that
 * exits is restarted with capped backoff) until a stop signal. Then stops them in reverse order and
 * removes or keeps the app instances. Resolves the exit code of the stack: 1 if start-up failed.
 */
export async function runStack(specs: ProcessSpec[], options: RunStackOptions): Promise<number> {
  const { console: out } = options;
  const running: SupervisedMember[] = [];
  const stopSignal = new Promise<string>((resolve) => {
    for (const signal of STOP_SIGNALS) options.signals.on(signal, () => resolve(signal));
  });
  const deps = {
    sink: out.member,
    say: out.say,
    policy: options.restartPolicy ?? DEFAULT_RESTART_POLICY,
    now: options.now ?? Date.now,
    delay: options.delay ?? abortableDelay,
  };

  let outcome: 'ready' | 'failed' | 'signal' = 'ready';
  const unlisten: (() => void)[] = [];
  for (const spec of specs) {
    const restartDir = spec.restartOnRequest?.dir;
    const member = superviseMember(
      spec,
      deps,
      restartDir === undefined ? undefined : recordChildPid(restartDir),
    );
    running.push(member);
    options.onMember?.(member);
    if (restartDir !== undefined) {
      const pid = options.pid ?? process.pid;
      unlisten.push(listenForRestartRequests({ dir: restartDir, member, signals: options.signals, pid }));
    }
    const started = await Promise.race([
      member.firstReady.then(() => 'ready' as const),
      stopSignal.then((signal) => ({ signal })),
    ]).catch((error: Error) => ({ error }));
    if (started === 'ready') {
      if (spec.banner) out.say(`${spec.name} ready at ${spec.banner}`);
      continue;
    }
    if ('error' in started) out.say(`start-up failed: ${started.error.message}`);
    else out.say(`${started.signal} received; stopping`);
    outcome = 'error' in started ? 'failed' : 'signal';
    break;
  }
  if (outcome === 'ready') {
    out.say('all members are ready; a member that exits is restarted; press Ctrl-C to stop');
    out.say(`${await stopSignal} received; stopping`);
  }
  for (const stopListening of unlisten) stopListening();
  for (const member of [...running].reverse()) await member.stop(options.stopGraceMs ?? 15_000);
  if (options.instances) await settleInstances(options.instances, options.keepInstances ?? false, out.say);
  out.say('stopped');
  return outcome === 'failed' ? 1 : 0;
}
