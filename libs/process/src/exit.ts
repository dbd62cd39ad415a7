// How a child process ended, as data and in words.

/** How a child ended. `error` is set when it could not be started at all (e.g. no such executable). */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
}

/** How a run ended, in words: `exit code 1`, `signal SIGKILL`, or why it could not start. */
export function describeExit(exit: ChildExit): string {
  if (exit.error !== undefined) return `could not start: ${exit.error}`;
  return exit.signal === null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
}
