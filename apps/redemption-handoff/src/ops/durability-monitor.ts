import { createDurableWriter, type RedisCommandClient } from '@sandbox/queue';
import type { Logger } from 'pino';

/** Dependencies of {@link createDurabilityMonitor}. */
export interface DurabilityMonitorDeps {
  readonly redis: RedisCommandClient;
  readonly logger: Logger;
  readonly intervalMs: number;
}

/** Whether Redis currently confirms durable writes. */
export interface DurabilityMonitor {
  isDurable(): boolean;
  /** Checks now (CONFIG GET each time: a setting changed at run time is seen). */
  check(): Promise<boolean>;
  start(): void;
  stop(): void;
}

/**
 * Re-checks, every `intervalMs`, that Redis can make writes durable (AOF on and WAITAOF, or
 * `appendfsync always`). Readiness and intake follow it: a Redis whose persistence was switched off at
 * run time, or that is unreachable, makes intake answer 503 instead of acknowledging tickets that a
 * crash could lose.
 */
export function createDurabilityMonitor(deps: DurabilityMonitorDeps): DurabilityMonitor {
  let durable = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async (): Promise<boolean> => {
    const before = durable;
    try {
      // A fresh writer each time: the library caches a successful check for the life of a writer.
      await createDurableWriter(deps.redis).check();
      durable = true;
    } catch (error) {
      durable = false;
      if (before) deps.logger.error({ err: error }, 'Redis no longer confirms durable writes');
    }
    if (durable && !before) deps.logger.info('Redis confirms durable writes');
    return durable;
  };
  return {
    isDurable: () => durable,
    check,
    start() {
      timer ??= setInterval(() => void check(), deps.intervalMs);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
