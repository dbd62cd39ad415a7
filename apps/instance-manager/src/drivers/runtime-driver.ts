import type { AppSpec, InstanceLogLine } from '@sandbox/protocol';

/** What the manager asks a driver to run. */
export interface StartRequest {
  instanceId: string;
  app: string;
  templateHash: string;
  spec: AppSpec;
}

/** An instance the driver found on the host or cluster. */
export interface HostInstance {
  instanceId: string;
  /** From the instance's labels. */
  app?: string;
  /** `failed`: broken or ended; it will never serve again and must be destroyed. */
  status: 'starting' | 'running' | 'failed';
  url?: string;
}

/** Which instance to act on; the app helps drivers that name objects after it. */
export interface InstanceRef {
  instanceId: string;
  app?: string;
  /** The private URL, when known. */
  url?: string;
}

/** The instance did not pass its health check in time, or stopped while starting. */
export class InstanceNotReadyError extends Error {
  override readonly name = 'InstanceNotReadyError';
  constructor(readonly reason: 'timeout' | 'exited') {
    super(
      reason === 'timeout' ? 'instance did not become ready in time' : 'instance stopped before it was ready',
    );
  }
}

/**
 * The runtime refused the instance for good (its object is invalid, or the driver may not create it);
 * the message is the reason the instance failed, as an operator should read it.
 */
export class InstanceRefusedError extends Error {
  override readonly name = 'InstanceRefusedError';
}

/** The runtime has not enough CPU or memory left for the instance; nothing was created. */
export class InsufficientCapacityError extends Error {
  override readonly name = 'InsufficientCapacityError';
}

/**
 * A runtime that runs instances (the local gVisor driver or Kubernetes). Every method is idempotent
 * and safe after a restart: the driver keeps no state the host or cluster does not also hold.
 */
export interface RuntimeDriver {
  readonly name: 'local' | 'kubernetes';
  /** Starts background machinery (informers). */
  open(): Promise<void>;
  close(): Promise<void>;
  /** Readiness: the driver's view of what runs is complete (informers listed). */
  synced(): boolean;
  /**
   * Calls `listener` whenever an instance changed on the runtime (its pod was added, updated or
   * deleted), so that instance is reconciled at once; drivers without change events omit it and rely
   * on the periodic pass.
   */
  watch?(listener: (instance: InstanceRef) => void): void;
  /** Per-app objects, such as a NetworkPolicy. */
  ensureApp(app: string, spec: AppSpec): Promise<void>;
  removeApp(app: string): Promise<void>;
  /** Creates the instance; returns its URL when already known. */
  start(request: StartRequest): Promise<{ url?: string }>;
  /** Resolves with the URL once the spec's health check passes; throws {@link InstanceNotReadyError}. */
  waitForReady(
    instance: InstanceRef,
    spec: AppSpec,
    options: { timeoutMs: number; intervalMs: number },
  ): Promise<{ url: string }>;
  /** Removes everything of the instance. */
  stop(instance: InstanceRef): Promise<void>;
  list(): Promise<HostInstance[]>;
  /** The last lines the instance wrote; undefined when the instance does not exist. */
  logs(instance: InstanceRef, tail: number): Promise<InstanceLogLine[] | undefined>;
}
