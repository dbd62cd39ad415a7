import type { Logger } from 'pino';
import { realSchedule } from '../lifecycle/timers';
import type { Schedule } from '../lifecycle/timers';

/** Lifecycle state: `starting` until markReady, `stopping` from the first moment of shutdown. */
export type LifecycleState = 'starting' | 'ready' | 'stopping';

/** A dependency check for readiness (Redis ping, informers synced); throw or return false to fail. */
export type ReadinessCheck = (signal: AbortSignal) => Promise<boolean | void> | boolean | void;

/** Outcome of one check; no error text, since it could carry a URL with credentials. */
export type CheckStatus = 'pass' | 'fail' | 'timeout';

/** The `/readyz` body. */
export interface ReadinessReport {
  status: LifecycleState | 'not_ready' | 'standby';
  checks: { name: string; status: CheckStatus }[];
}

/** Options of {@link createHealth}. */
export interface CreateHealthOptions {
  /** Logs failed checks (with their error) at `warn`. */
  logger?: Pick<Logger, 'warn'>;
  /** Per-check timeout unless the check sets its own. @defaultValue 2000 */
  defaultTimeoutMs?: number;
  /** Timer for check timeouts. @defaultValue the real clock */
  schedule?: Schedule;
  /** The version of the running code, reported by `/healthz`. @defaultValue none */
  version?: string;
}

/** Liveness and readiness of one process. */
export interface Health {
  readonly state: LifecycleState;
  /** The version of the running code (what `/healthz` reports), if known. */
  readonly version?: string;
  /** Start-up finished: readiness now depends on the checks. Ignored once stopping. */
  markReady(): void;
  /** Shutdown began: readiness is 503 from now on, for good. */
  markStopping(): void;
  /**
   * A replica waiting for its service's lease: readiness is 503 with status `standby` (the checks
   * still run and are reported) until it is set back to false.
   */
  setStandby(standby: boolean): void;
  /** Whether this replica is a standby (see {@link Health.setStandby}). */
  readonly standby: boolean;
  /** Adds a named check, run (with a timeout) on every readiness probe while ready. */
  addReadinessCheck(name: string, check: ReadinessCheck, options?: { timeoutMs?: number }): void;
  /** 200 with the report when ready and every check passes, else 503. Never throws. */
  readiness(): Promise<{ httpStatus: 200 | 503; report: ReadinessReport }>;
}

interface RegisteredCheck {
  name: string;
  check: ReadinessCheck;
  timeoutMs: number;
}

/**
 * Creates the health state of a process (Backstage's root health service, in small). Liveness needs
 * nothing from here: `/healthz` answers 200 as long as the process serves HTTP.
 */
export function createHealth(options: CreateHealthOptions = {}): Health {
  let state: LifecycleState = 'starting';
  let standby = false;
  const checks: RegisteredCheck[] = [];
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 2000;
  const schedule = options.schedule ?? realSchedule;

  return {
    get state() {
      return state;
    },
    get standby() {
      return standby;
    },
    version: options.version,
    markReady() {
      if (state === 'starting') state = 'ready';
    },
    markStopping() {
      state = 'stopping';
    },
    setStandby(value) {
      standby = value;
    },
    addReadinessCheck(name, check, checkOptions) {
      if (checks.some((existing) => existing.name === name))
        throw new Error(`readiness check ${name} already exists`);
      checks.push({ name, check, timeoutMs: checkOptions?.timeoutMs ?? defaultTimeoutMs });
    },
    async readiness() {
      if (state !== 'ready') return { httpStatus: 503, report: { status: state, checks: [] } };
      const results = await Promise.all(
        checks.map(async (entry) => ({
          name: entry.name,
          status: await runCheck(entry, schedule, options.logger),
        })),
      );
      // Shutdown may have begun while the checks ran.
      const current = state as LifecycleState;
      const passed = results.every((result) => result.status === 'pass');
      const ok = current === 'ready' && passed && !standby;
      const status = current !== 'ready' ? current : standby ? 'standby' : passed ? 'ready' : 'not_ready';
      return { httpStatus: ok ? 200 : 503, report: { status, checks: results } };
    },
  };
}

/** Runs one check against its timeout (aborting it on timeout); logs failures, returns the outcome. */
async function runCheck(
  { name, check, timeoutMs }: RegisteredCheck,
  schedule: Schedule,
  logger: CreateHealthOptions['logger'],
): Promise<CheckStatus> {
  const controller = new AbortController();
  let timer: { cancel(): void } | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = schedule(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([Promise.resolve().then(() => check(controller.signal)), timeout]);
    if (outcome === 'timeout') {
      controller.abort();
      logger?.warn({ check: name, timeoutMs }, 'readiness check timed out');
      return 'timeout';
    }
    return outcome === false ? 'fail' : 'pass';
  } catch (error) {
    logger?.warn({ check: name, err: error }, 'readiness check failed');
    return 'fail';
  } finally {
    timer?.cancel();
  }
}
