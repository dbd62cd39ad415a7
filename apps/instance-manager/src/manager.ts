import { INSTANCE_EVENTS_QUEUE, SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import { fencedCheckpoint, guardMethods } from '@sandbox/lease';
import type { LeaseElector } from '@sandbox/lease';
import { createProducer, createWorker } from '@sandbox/queue';
import type { TypedWorker } from '@sandbox/queue';
import type { Health, ServiceLogger, ServiceMetrics } from '@sandbox/service-kit';
import type { Express, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { createApp } from './app';
import type { Clock } from '@sandbox/service-kit';
import { createAppReconciler } from './controllers/app-reconciler.controller';
import { createHostSync } from './controllers/host-sync.controller';
import { createInstanceEventsEmitter } from './controllers/instance-events.emitter';
import { createInstanceEnder } from './controllers/instance-ender';
import type { InstanceEnder } from './controllers/instance-ender';
import { createInstanceStarter } from './controllers/instance-starter';
import { createCoalescer, createKeyedSerial } from './controllers/keyed-serial';
import type { LifecycleContext, LifecycleTiming } from './controllers/lifecycle-context';
import { createReconcileLoop } from './controllers/reconcile-loop';
import { createFailureBackoff } from './domain/failure-backoff';
import type { RuntimeDriver } from './drivers/runtime-driver';
import { sessionEventHandlers } from './jobs/session-events.worker';
import { createManagerMetrics } from './manager-metrics';
import { createAppStore } from './store/app-store';
import { createInstanceStore } from './store/instance-store';
import { createLogArchive } from './store/log-archive';

/** Settings of {@link createInstanceManager} (from the config). */
export interface ManagerSettings extends LifecycleTiming {
  keyPrefix: string;
  queuePrefix: string;
  resyncIntervalMs: number;
  goneRetentionMs: number;
  startConcurrency: number;
}

/** Dependencies of {@link createInstanceManager}. */
export interface ManagerDeps {
  logger: ServiceLogger;
  health: Health;
  metrics: ServiceMetrics;
  /** The API's access policy. */
  access: RequestHandler;
  /** `producer` connection: HTTP handlers and the instance-events producer fail fast on it. */
  producerRedis: Redis;
  /** `worker` connection: controllers and the session-events worker wait out Redis restarts on it. */
  workerRedis: Redis;
  driver: RuntimeDriver;
  clock: Clock;
  settings: ManagerSettings;
  /**
   * The service's lease (two replicas): the controllers' driver actions and record writes check the
   * holding, and every full pass first checks in through the fence. @defaultValue none (one process)
   */
  lease?: LeaseElector;
}

const DRIVER_ACTIONS = ['ensureApp', 'removeApp', 'start', 'stop'] as const;
const STORE_WRITES = ['create', 'transition', 'update', 'markQueued', 'end', 'reserve', 'release'] as const;

/** The assembled service: its HTTP app, and start/stop of everything behind it. */
export interface InstanceManager {
  app: Express;
  /** Opens the driver, runs the recovery pass, then starts the loop and the session-events worker. */
  start(): Promise<void>;
  /**
   * Stops taking events and reconciling; leaves every instance running (a restart adopts them).
   * `waitForStarts` also waits for starts in flight (tests), which may take the readiness timeout.
   */
  stop(options?: { waitForStarts?: boolean }): Promise<void>;
  /** Recovery done and the driver's view complete. */
  ready(): boolean;
  /** One full reconcile pass now (tests and benches). */
  fullPass(): Promise<void>;
  /** Reconciles one app now. */
  reconcile(app: string): Promise<void>;
}

/** The controllers' store and driver: with a lease, their writes and actions check the holding. */
function guardedByLease({ settings, workerRedis, driver, lease }: ManagerDeps) {
  const store = createInstanceStore({
    redis: workerRedis,
    prefix: settings.keyPrefix,
    retentionMs: settings.goneRetentionMs,
  });
  if (lease === undefined) return { store, driver };
  return {
    store: guardMethods(store, lease, STORE_WRITES),
    driver: guardMethods(driver, lease, DRIVER_ACTIONS),
  };
}

/** Wires stores, drivers, controllers, the worker and the API of the instance-manager. */
export function createInstanceManager(deps: ManagerDeps): InstanceManager {
  const { settings, logger, clock, lease } = deps;
  const prefix = settings.keyPrefix;
  const { store, driver } = guardedByLease(deps);
  const producer = createProducer(INSTANCE_EVENTS_QUEUE, {
    connection: deps.producerRedis,
    prefix: settings.queuePrefix,
    logger,
  });
  const ctx: LifecycleContext = {
    store,
    apps: createAppStore({ redis: deps.workerRedis, prefix }),
    logs: createLogArchive({ redis: deps.workerRedis, prefix, retentionMs: settings.goneRetentionMs }),
    driver,
    emitter: createInstanceEventsEmitter({ producer, store, logger }),
    backoff: createFailureBackoff(),
    clock,
    logger,
    metrics: createManagerMetrics(deps.metrics.registry),
    timing: settings,
    serial: createKeyedSerial(),
    // The loop is created below; nothing settles before start().
    onSettled: (app) => void loop.trigger(app),
  };
  const starter = createInstanceStarter(ctx, () => ender, settings.startConcurrency);
  const ender: InstanceEnder = createInstanceEnder(ctx, starter.isStarting);
  const lifecycle = { starter, ender };
  const reconcileApp = createAppReconciler(ctx, lifecycle, (app, ms) => loop.retryLater(app, ms));
  const hostSync = createHostSync(ctx, lifecycle);
  // With a lease, each pass checks in through the fence first: a replica that missed losing the lease
  // stops at its next pass (Redis refuses the stale token) instead of acting on the host.
  // A changed instance's sync goes through the guarded driver and store (refused when not holding).
  const syncHost = lease
    ? Object.assign(
        async () => {
          await fencedCheckpoint(lease, 'reconcile-pass', () => clock.now());
          await hostSync();
        },
        { syncInstance: hostSync.syncInstance },
      )
    : hostSync;
  const loop = createReconcileLoop(ctx, { syncHost, reconcileApp }, settings.resyncIntervalMs);
  const activeLoop = loop;
  // A driver with change events reconciles the changed instance at once; the full pass is then only
  // the safety net. Like session events, they wait for the recovery pass.
  const instanceChanges = createCoalescer(
    (id) => syncHost.syncInstance({ instanceId: id }),
    (instanceId, error) => logger.error({ err: error, instanceId }, 'syncing a changed instance failed'),
  );
  let watching = true;
  const onInstanceChange = (id: string): void => {
    if (!watching || !activeLoop.recovered()) return;
    // Its start task owns the instance; look again once it settles (the change may follow its last look).
    if (starter.isStarting(id)) return void starter.settled(id).then(() => onInstanceChange(id));
    void instanceChanges.trigger(id);
  };
  driver.watch?.((instance) => onInstanceChange(instance.instanceId));
  let worker: TypedWorker | undefined;

  const apiRedis = deps.producerRedis;
  const app = createApp({
    logger,
    health: deps.health,
    metrics: deps.metrics,
    access: deps.access,
    apps: createAppStore({ redis: apiRedis, prefix }),
    store: createInstanceStore({ redis: apiRedis, prefix, retentionMs: settings.goneRetentionMs }),
    logs: createLogArchive({ redis: apiRedis, prefix, retentionMs: settings.goneRetentionMs }),
    driver,
    clock,
    reconcile: (name) => void activeLoop.trigger(name),
  });

  return {
    app,
    async start() {
      await driver.open();
      while (!driver.synced()) await clock.sleep(100);
      activeLoop.start();
      watching = true;
      // Events wait for the recovery pass, so none acts on records the restart has not checked yet.
      while (!activeLoop.recovered()) await clock.sleep(50);
      const handlers = sessionEventHandlers(ctx, {
        ender: lifecycle.ender,
        trigger: (name) => void activeLoop.trigger(name),
      });
      worker = createWorker(SESSION_EVENTS_QUEUE, handlers, {
        connection: deps.workerRedis,
        prefix: settings.queuePrefix,
        logger,
        autorun: false,
      });
      // An event a killed manager was handling (a take, say) runs now, not after BullMQ's stalled check.
      await worker.start();
    },
    async stop(options = {}) {
      await worker?.close();
      await activeLoop.stop();
      watching = false;
      await instanceChanges.idle();
      if (options.waitForStarts) await starter.idle();
      await producer.close();
      await driver.close();
    },
    ready: () => activeLoop.recovered() && driver.synced(),
    fullPass: () => activeLoop.fullPass(),
    reconcile: (name) => activeLoop.trigger(name),
  };
}
