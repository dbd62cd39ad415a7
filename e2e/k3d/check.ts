// How the suite reports: each check prints `ok <name>` or throws with every failure it found.

/** Where the suite prints its lines. */
export type Log = (line: string) => void;

/** Prints `ok name` when `failures` is empty; throws them otherwise. */
export function check(log: Log, name: string, failures: readonly string[]): void {
  if (failures.length > 0) throw new Error(`FAILED ${name}:\n  ${failures.join('\n  ')}`);
  log(`ok   ${name}`);
}

/** No failure when `actual` equals `expected` (compared as JSON); one line saying both otherwise. */
export const expectEqual = (what: string, actual: unknown, expected: unknown): string[] =>
  JSON.stringify(actual) === JSON.stringify(expected)
    ? []
    : [`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];

/** No failure when `ok`; the line `what` otherwise. */
export const expectTrue = (what: string, ok: boolean): string[] => (ok ? [] : [what]);
