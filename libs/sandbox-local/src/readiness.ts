import { request } from 'node:http';
import { connect } from 'node:net';
import type { Clock } from '@sandbox/service-kit';
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
   * Pause between attempts, kept within 100-250 ms so a ready app is noticed quickly without
   * hammering one that is still starting.
   * @defaultValue 150
   */
  intervalMs?: number;
  /** @defaultValue 30000 */
  timeoutMs?: number;
  /** @defaultValue 1000 */
  attemptTimeoutMs?: number;
  /** Asked after failed attempts (at most once a second); false ends the wait early. */
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

/** Polls {@link probeOnce} until it passes; throws {@link NotReadyError} on timeout or exit. */
export async function waitForReady(
  target: ProbeTarget,
  check: HealthCheck,
  options: ReadinessOptions,
): Promise<ReadyResult> {
  const { clock } = options;
  const interval = Math.min(250, Math.max(100, options.intervalMs ?? 150));
  const started = clock.now();
  const deadline = started + (options.timeoutMs ?? 30_000);
  let lastAliveCheck = started;
  for (let attempts = 1; ; attempts += 1) {
    if (await probeOnce(target, check, options.attemptTimeoutMs ?? 1000)) {
      return { elapsedMs: clock.now() - started, attempts };
    }
    const now = clock.now();
    if (options.isAlive && now - lastAliveCheck >= 1000) {
      lastAliveCheck = now;
      if (!(await options.isAlive()))
        throw new NotReadyError('instance stopped before it became ready', 'exited');
    }
    if (now + interval > deadline)
      throw new NotReadyError('instance did not become ready in time', 'timeout');
    await clock.sleep(interval);
  }
}
