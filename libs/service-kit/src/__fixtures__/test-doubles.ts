// Test doubles shared by this library's specs: an in-memory log destination and a manual timer.
import type { Schedule } from '../lifecycle/timers';

/** A pino destination that keeps every line in memory. */
export function memoryDestination() {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
    },
    /** Every line parsed as JSON. */
    records(): Record<string, unknown>[] {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text(): string {
      return lines.join('');
    },
  };
}

/** A {@link Schedule} whose timers fire only when the test says so. */
export function manualSchedule() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const schedule: Schedule = (callback, ms) => {
    const id = next++;
    pending.set(id, { callback, ms });
    return { cancel: () => pending.delete(id) };
  };
  return {
    schedule,
    pendingDelays: () => [...pending.values()].map((timer) => timer.ms),
    /** Fires every pending timer. */
    fireAll() {
      const due = [...pending.entries()];
      pending.clear();
      for (const [, timer] of due) timer.callback();
    },
  };
}
