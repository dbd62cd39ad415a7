import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files through which a restartable member is asked to restart. `request` holds the id of the
 * latest restart asked for, `handled` the id of the latest one done; a request whose id was already
 * handled is ignored, so asking twice with one id (a retry after a crash) restarts once.
 */
export function restartFiles(dir: string) {
  const path = (name: string) => join(dir, name);
  const read = (name: string): string => {
    try {
      return readFileSync(path(name), 'utf8').trim();
    } catch {
      return '';
    }
  };
  // Written whole or not at all: a reader never sees half a value.
  const write = (name: string, value: string): void => {
    writeFileSync(path(`${name}.tmp`), `${value}\n`);
    renameSync(path(`${name}.tmp`), path(name));
  };
  return {
    supervisorPid: () => Number(read('supervisor.pid')) || undefined,
    childPid: () => Number(read('child.pid')) || undefined,
    request: () => read('request'),
    handled: () => read('handled'),
    setSupervisorPid: (pid: number) => write('supervisor.pid', String(pid)),
    setChildPid: (pid: number) => write('child.pid', String(pid)),
    setRequest: (id: string) => write('request', id),
    setHandled: (id: string) => write('handled', id),
  };
}

/** Restart ids are opaque ids (a drain id): nothing a file or a shell could misread. */
export const RESTART_ID = /^[A-Za-z0-9_-]{1,128}$/u;

/**
 * The signal that tells the supervisor to look at its members' restart requests. Not SIGHUP (which
 * stops the stack, as a closed terminal would) and not SIGUSR1 (Node's debugger).
 */
export const RESTART_SIGNAL = 'SIGUSR2';
