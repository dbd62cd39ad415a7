import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import { describeReadiness, type AppReadiness } from '../commands/app-readiness';
import type { Printer } from './printer';

/** Shows apps converging: a bar per app on a terminal, a line per change elsewhere (logs, CI). */
export interface ReadinessProgress {
  update(readiness: AppReadiness): void;
  stop(): void;
}

/** Chooses bars or lines by whether stderr is a terminal. */
export function readinessProgress(printer: Printer): ReadinessProgress {
  if (printer.stderr.isTTY !== true) {
    const last = new Map<string, string>();
    return {
      update(readiness) {
        const text = describeReadiness(readiness);
        if (last.get(readiness.app) !== text) printer.note(`app/${readiness.app}: ${text}`);
        last.set(readiness.app, text);
      },
      stop: () => undefined,
    };
  }
  const bars = new MultiBar(
    {
      stream: printer.stderr as NodeJS.WritableStream,
      format: 'app/{app} [{bar}] ready {ready}/{declared}  registered {registered}/{declared}  {failure}',
      // A hidden cursor would stay hidden if the operator interrupts the wait.
      hideCursor: false,
      clearOnComplete: false,
      stopOnComplete: false,
      barsize: 24,
    },
    Presets.shades_classic,
  );
  const byApp = new Map<string, SingleBar>();
  return {
    update(readiness) {
      // Each declared instance counts twice: once ready, once registered.
      const total = Math.max(1, readiness.declared * 2);
      const value =
        Math.min(readiness.ready, readiness.declared) + Math.min(readiness.registered, readiness.declared);
      const payload = { ...readiness, failure: readiness.lastFailure ?? '' };
      const bar = byApp.get(readiness.app);
      if (bar) {
        bar.setTotal(total);
        bar.update(readiness.declared === 0 ? 1 : value, payload);
      } else byApp.set(readiness.app, bars.create(total, readiness.declared === 0 ? 1 : value, payload));
    },
    stop: () => bars.stop(),
  };
}
