import type { Logger } from 'pino';
import type { Clock } from '@sandbox/service-kit';
import type { FailureBackoff } from '../domain/failure-backoff';
import type { RuntimeDriver } from '../drivers/runtime-driver';
import type { ManagerMetrics } from '../manager-metrics';
import type { AppStore } from '../store/app-store';
import type { InstanceStore } from '../store/instance-store';
import type { LogArchive } from '../store/log-archive';
import type { InstanceEventsEmitter } from './instance-events.emitter';
import type { KeyedSerial } from './keyed-serial';

/** Time limits of the lifecycle. */
export interface LifecycleTiming {
  readyTimeoutMs: number;
  probeIntervalMs: number;
  /** Deadline for the adapter to answer an immediate withdrawal. */
  withdrawTimeoutMs: number;
  /** Deadline for a graceful withdrawal (sessions may still be running). */
  withdrawGraceMs: number;
}

/** What the instance lifecycle operations share. */
export interface LifecycleContext {
  store: InstanceStore;
  apps: AppStore;
  logs: LogArchive;
  driver: RuntimeDriver;
  emitter: InstanceEventsEmitter;
  backoff: FailureBackoff;
  clock: Pick<Clock, 'now' | 'sleep'>;
  logger: Logger;
  metrics: ManagerMetrics;
  timing: LifecycleTiming;
  /** Per-instance serialisation of state changes and their events. */
  serial: KeyedSerial;
  /** Called when an instance settled (ready, failed, gone): reconcile its app again. */
  onSettled(app: string): void;
}
