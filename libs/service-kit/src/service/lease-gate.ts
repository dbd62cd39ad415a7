import { Gauge } from 'prom-client';
import type { RequestHandler } from 'express';
import { UnavailableError } from '../errors/app-error';
import type { Health } from '../health/health';
import type { ServiceRuntime } from '../lifecycle/service-runtime';
import type { StartHook } from './start-service';

/** What a lease elector tells its service (see `@sandbox/lease`). */
export interface LeaseGateHandlers {
  /** This process now holds the lease: start acting. */
  onActive(): void;
  /** This process no longer holds it (renew deadline passed, lease taken): stop acting now. */
  onLost(reason: string): void;
}

/** A lease contended for by the replicas of one service; only the holder runs the active parts. */
export interface LeaseGate {
  /** Starts contending; calls `onActive` once it holds, `onLost` once it stopped holding. */
  run(handlers: LeaseGateHandlers): void;
  /** Stops contending and frees the lease if this process holds it. */
  release(): Promise<void>;
}

/**
 * The parts of a service that must run on one replica at a time (a reconciler, heartbeats, a
 * delivery worker). The other replicas serve reads and report `/readyz` 503 `standby`.
 */
export interface ActiveParts {
  lease: LeaseGate;
  /** Run in order once the lease is held (after the service is otherwise ready). */
  start: readonly StartHook[];
  /** Stops everything `start` started; called at most once, even when a start is half done. */
  stop(): Promise<void>;
  /**
   * What a standby does besides waiting: `reads` (it answers reads, refuses writes with 503 and
   * reports `/readyz` 503 `standby`), or `everything` (its whole API is safe on several replicas at
   * once, so it stays ready and serves it; only the active parts wait for the lease).
   * @defaultValue 'reads'
   */
  standbyServes?: 'reads' | 'everything';
}

/**
 * Runs `parts` only while the lease is held. A lost lease stops them at once (before the lease's TTL
 * lets another replica start) and then shuts the process down with exit code 1, so it comes back as a
 * fresh standby (as Kubernetes' controller-manager does). On a graceful shutdown the parts stop in
 * the `workers` phase and the lease is freed in the `queues` phase, so a standby takes over within
 * one retry period instead of one TTL.
 */
export function runActiveParts(runtime: ServiceRuntime, parts: ActiveParts): void {
  const { logger, health, shutdown, metrics } = runtime;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const active = leaseActiveGauge(metrics.registry);
  const stopOnce = (): Promise<void> => {
    stopping ??= (async () => {
      active.set(0);
      await starting?.catch(() => undefined);
      await parts.stop();
    })();
    return stopping;
  };
  // A standby that serves everything is ready like any replica; the gauge says which one is active.
  const standby = (value: boolean) => {
    if (parts.standbyServes !== 'everything') health.setStandby(value);
  };
  standby(true);
  shutdown.register('workers', 'lease-active-parts', stopOnce);
  shutdown.register('queues', 'lease', () => parts.lease.release());
  parts.lease.run({
    onActive() {
      starting = (async () => {
        for (const hook of parts.start) {
          if (stopping !== undefined) return;
          logger.debug({ hook: hook.name }, 'active start hook');
          await hook.run();
        }
        if (stopping !== undefined) return;
        active.set(1);
        standby(false);
        logger.info({}, 'lease held: active');
      })();
      starting.catch((error: unknown) => {
        logger.fatal({ err: error }, 'active parts failed to start');
        void shutdown.run('active parts failed to start', 1);
      });
    },
    onLost(reason) {
      standby(true);
      logger.warn({ reason }, 'lease lost: stopping the active parts');
      void stopOnce().finally(() => shutdown.run('lease lost', 1));
    },
  });
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The access policy, then: a standby answers reads but refuses writes with 503 `unavailable` (the
 * active replica takes them; the probes say which one that is). Services without a lease are never
 * standby.
 */
export function refuseWritesOnStandby(
  access: RequestHandler,
  health: Pick<Health, 'standby'>,
): RequestHandler {
  return (request, response, next) =>
    access(request, response, (error?: unknown) => {
      if (error !== undefined) return next(error);
      if (health.standby && !READ_METHODS.has(request.method))
        return next(new UnavailableError('this replica is a standby; writes go to the active replica'));
      next();
    });
}

function leaseActiveGauge(registry: ServiceRuntime['metrics']['registry']) {
  const existing = registry.getSingleMetric('lease_active');
  if (existing !== undefined) return existing as Gauge;
  return new Gauge({
    name: 'lease_active',
    help: '1 while this replica holds the service lease and runs its active parts, else 0 (standby).',
    registers: [registry],
  });
}
