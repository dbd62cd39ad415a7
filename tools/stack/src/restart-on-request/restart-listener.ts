import { mkdirSync } from 'node:fs';
import type { SupervisedMember } from '../supervisor';
import { RESTART_SIGNAL, restartFiles } from './restart-files';

/** SIGTERM to SIGKILL of the run being replaced. */
const REPLACE_GRACE_MS = 15_000;

/** Options of {@link listenForRestartRequests}. */
export interface RestartListenerOptions {
  /** The member's restart files (`request`, `handled`, `supervisor.pid`, `child.pid`). */
  dir: string;
  member: SupervisedMember;
  /** Emits {@link RESTART_SIGNAL} (the process, in the stack). */
  signals: NodeJS.EventEmitter;
  /** This process's id, written to `supervisor.pid` for `request-restart.ts`. */
  pid: number;
}

/**
 * Makes a supervised member restartable on request: `request-restart.ts` writes an id to `request`
 * and signals this process, which replaces the member's run and writes the id to `handled`. An id
 * already handled (a retry after the asker crashed) restarts nothing. Returns a function that stops
 * listening.
 */
export function listenForRestartRequests(options: RestartListenerOptions): () => void {
  mkdirSync(options.dir, { recursive: true });
  const files = restartFiles(options.dir);
  let busy = false;
  const onSignal = async (): Promise<void> => {
    const id = files.request();
    if (busy || id === '' || id === files.handled()) return;
    busy = true;
    await options.member.restart(REPLACE_GRACE_MS);
    files.setHandled(id);
    busy = false;
    // A request that came in while this one was being handled.
    if (files.request() !== id) void onSignal();
  };
  const listener = () => void onSignal();
  options.signals.on(RESTART_SIGNAL, listener);
  files.setSupervisorPid(options.pid);
  return () => void options.signals.off(RESTART_SIGNAL, listener);
}

/** Keeps `<dir>/child.pid` at the member's current process id (for `request-restart.ts`'s answer). */
export function recordChildPid(dir: string): (pid: number | undefined) => void {
  mkdirSync(dir, { recursive: true });
  const files = restartFiles(dir);
  return (pid) => {
    if (pid !== undefined) files.setChildPid(pid);
  };
}
