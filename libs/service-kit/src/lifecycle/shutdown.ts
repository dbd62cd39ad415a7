import type { Logger } from 'pino';
import { realSchedule } from './timers';
import type { Schedule } from './timers';

/**
 * Shutdown phases, in the order they run: readiness off, stop HTTP, close workers (they finish their
 * jobs), close queues (producers), stop informers, quit Redis.
 */
export const SHUTDOWN_PHASES = ['readiness', 'http', 'workers', 'queues', 'informers', 'redis'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

/** A shutdown hook; may be async. */
export type ShutdownHook = () => unknown;

/** Options of {@link createShutdown}. */
export interface CreateShutdownOptions {
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'fatal'>;
  /** Hard limit for the whole shutdown; after it the process exits 1. Keep it below k8s' grace period. */
  timeoutMs: number;
  /** Ends the process. @defaultValue `process.exit` */
  exit?: (code: number) => void;
  /** Marked stopping synchronously, the first thing a shutdown does, so `/readyz` turns 503 at once. */
  health?: { markStopping(): void };
  /** Timer for the hard limit. @defaultValue the real clock */
  schedule?: Schedule;
}

/** The process's shutdown registry. */
export interface Shutdown {
  /** Adds a hook to a phase; throws once shutdown has begun (a late hook would never run). */
  register(phase: ShutdownPhase, name: string, hook: ShutdownHook): void;
  /**
   * Runs every phase in order, the hooks of a phase concurrently, each isolated and logged; then
   * exits 0 (or `exitCode`, or 1 if a hook failed). Runs once: later calls return the same promise.
   */
  run(reason: string, exitCode?: number): Promise<void>;
  readonly started: boolean;
}

/**
 * Creates the shutdown registry (Backstage's lifecycle, with our phases). The hard timer is started
 * when shutdown begins and is deliberately NOT unref'd: a hook hanging on a bare promise leaves
 * nothing else to keep the process alive, and it would otherwise exit 0 without the timer firing.
 * It is cancelled when the phases finish.
 */
export function createShutdown(options: CreateShutdownOptions): Shutdown {
  const { logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const schedule = options.schedule ?? realSchedule;
  const hooks = new Map<ShutdownPhase, { name: string; hook: ShutdownHook }[]>(
    SHUTDOWN_PHASES.map((p) => [p, []]),
  );
  let running: Promise<void> | undefined;

  const runPhases = async (reason: string, exitCode: number): Promise<void> => {
    logger.info({ reason }, 'shutdown started');
    const timer = schedule(() => {
      logger.fatal({ timeoutMs: options.timeoutMs }, 'shutdown timed out');
      exit(1);
    }, options.timeoutMs);
    let failed = false;
    for (const phase of SHUTDOWN_PHASES) {
      const entries = hooks.get(phase) ?? [];
      const results = await Promise.all(entries.map(({ name, hook }) => runHook(logger, phase, name, hook)));
      if (results.includes(false)) failed = true;
    }
    timer.cancel();
    const code = exitCode !== 0 ? exitCode : failed ? 1 : 0;
    logger.info({ exitCode: code }, 'shutdown complete');
    exit(code);
  };

  return {
    register(phase, name, hook) {
      if (running) throw new Error(`cannot register shutdown hook ${name}: shutdown has begun`);
      hooks.get(phase)?.push({ name, hook });
    },
    run(reason, exitCode = 0) {
      if (running) {
        logger.warn({ reason }, 'shutdown already in progress');
        return running;
      }
      options.health?.markStopping();
      running = runPhases(reason, exitCode);
      return running;
    },
    get started() {
      return running !== undefined;
    },
  };
}

/** Runs one hook, isolated: a failure is logged and reported as `false`, never thrown. */
async function runHook(
  logger: CreateShutdownOptions['logger'],
  phase: ShutdownPhase,
  name: string,
  hook: ShutdownHook,
): Promise<boolean> {
  try {
    await hook();
    logger.info({ phase, hook: name }, 'shutdown hook done');
    return true;
  } catch (error) {
    logger.error({ phase, hook: name, err: error }, 'shutdown hook failed');
    return false;
  }
}
