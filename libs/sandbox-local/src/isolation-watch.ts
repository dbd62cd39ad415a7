import type { Logger } from 'pino';
import type { Clock } from '@sandbox/service-kit';

/** Options of {@link watchRepeatedly}. */
export interface RepeatOptions<T> {
  intervalMs: number;
  clock: Clock;
  onDrift: (drift: T) => void;
  logger: Logger;
}

/**
 * Runs `check` now and then every `intervalMs` until stopped, handing each result to `onDrift`. A
 * failed pass is logged and the loop goes on: one bad pass must not end the guard.
 */
export function watchRepeatedly<T>(check: () => Promise<T[]>, options: RepeatOptions<T>) {
  let stopped = false;
  let wake = () => undefined as void;
  const stopping = new Promise<void>((resolve) => (wake = resolve));
  const loop = (async () => {
    while (!stopped) {
      try {
        for (const drift of await check()) options.onDrift(drift);
      } catch (error) {
        options.logger.error({ err: error }, 'isolation check failed');
      }
      await Promise.race([options.clock.sleep(options.intervalMs), stopping]);
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
