import { request } from 'node:http';
import { connect } from 'node:net';
import type { Clock } from './clock';
import type { HealthCheck } from './instance-spec.schema';

/** Where a probe connects: the instance address and app port. */
export interface ProbeTarget {
  address: string;
  port: number;
}

/** Options of {@link waitForReady}. */
export interface ReadinessOptions {
  clock: Clock;
  /**
   * Pause between attempts once the app has had a second to start, kept within 100-250 ms so a slow
   * app is not hammered. During the first second the probe runs every {@link FAST_PROBE_MS} (most apps
   * answer within it, and each probe until then is one refused connection), then the pause doubles up
   * to this value.
   * @defaultValue 150
   */
  intervalMs?: number;
  /** @defaultValue 30000 */
  timeoutMs?: number;
  /** @defaultValue 1000 */
  attemptTimeoutMs?: number;
  /**
   * Asked after failed attempts (at most once a second, in the background so a slow answer does not
   * delay the next probe); false ends the wait early.
   */
  isAlive?: () => Promise<boolean>;
}

/** The probe passed. */
export interface ReadyResult {
  elapsedMs: number;
  attempts: number;
}

/** The instance did not pass its probe before the deadline, or stopped while starting. */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
  constructor(
    message: string,
    readonly reason: 'timeout' | 'exited',
  ) {
    super(message);
  }
}

function httpProbe(
  target: ProbeTarget,
  path: string,
  expectedStatus: number,
  timeoutMs: number,
): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({
      host: target.address,
      port: target.port,
      path,
      method: 'GET',
      agent: false,
      timeout: timeoutMs,
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode === expectedStatus);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function tcpProbe(target: ProbeTarget, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.address, port: target.port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.on('connect', () => done(true));
    socket.on('timeout', () => done(false));
    socket.on('error', () => done(false));
  });
}

/** One probe attempt from the host; never throws. */
export function probeOnce(target: ProbeTarget, check: HealthCheck, timeoutMs = 1000): Promise<boolean> {
  return check.type === 'http'
    ? httpProbe(target, check.path, check.expectedStatus, timeoutMs)
    : tcpProbe(target, timeoutMs);
}

/** Pause between the first attempts, while the app has had less than {@link FAST_WINDOW_MS} to start. */
export const FAST_PROBE_MS = 10;
/** How long after the start of the wait attempts follow each other every {@link FAST_PROBE_MS}. */
export const FAST_WINDOW_MS = 1_000;

/** The pause after an attempt `sinceStartMs` into the wait, given the previous pause. */
function nextPause(sinceStartMs: number, previousMs: number, steadyMs: number): number {
  if (sinceStartMs < FAST_WINDOW_MS) return Math.min(FAST_PROBE_MS, steadyMs);
  return Math.min(steadyMs, Math.max(FAST_PROBE_MS, previousMs) * 2);
}

/** Asks `isAlive` at most once a second without waiting for its answer; `check()` throws once it said no. */
function backgroundLiveness(isAlive: (() => Promise<boolean>) | undefined, started: number) {
  let lastAsked = started;
  let asking: Promise<void> | undefined;
  let outcome: { dead: true } | { error: unknown } | undefined;
  return {
    check(now: number): void {
      if (outcome && 'dead' in outcome)
        throw new NotReadyError('instance stopped before it became ready', 'exited');
      if (outcome) throw outcome.error;
      if (!isAlive || asking || now - lastAsked < 1000) return;
      lastAsked = now;
      asking = isAlive().then(
        (alive) => {
          if (!alive) outcome = { dead: true };
          asking = undefined;
        },
        (error: unknown) => {
          outcome = { error };
          asking = undefined;
        },
      );
    },
  };
}

/** Polls {@link probeOnce} until it passes; throws {@link NotReadyError} on timeout or exit. */
export async function waitForReady(
  target: ProbeTarget,
  check: HealthCheck,
  options: ReadinessOptions,
): Promise<ReadyResult> {
  const { clock } = options;
  const steady = Math.min(250, Math.max(100, options.intervalMs ?? 150));
  const started = clock.now();
  const deadline = started + (options.timeoutMs ?? 30_000);
  const liveness = backgroundLiveness(options.isAlive, started);
  let pause = 0;
  for (let attempts = 1; ; attempts += 1) {
    if (await probeOnce(target, check, options.attemptTimeoutMs ?? 1000)) {
      return { elapsedMs: clock.now() - started, attempts };
    }
    const now = clock.now();
    liveness.check(now);
    pause = nextPause(now - started, pause, steady);
    if (now + pause > deadline) throw new NotReadyError('instance did not become ready in time', 'timeout');
    await clock.sleep(pause);
  }
}
