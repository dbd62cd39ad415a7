import type { InstanceLogLine } from '@sandbox/protocol';
import type { HostInstance, InstanceRef, RuntimeDriver } from '../drivers/runtime-driver';
import { InstanceNotReadyError } from '../drivers/runtime-driver';

/** One instance of the fake host. */
export interface FakeHostInstance extends HostInstance {
  app: string;
}

/**
 * An in-memory host for controller tests: instances appear on `start` (or when a test plants them),
 * pass their health check unless told otherwise, and vanish on `stop`. The host outlives manager
 * instances, as a real host outlives a crashed manager.
 */
export class FakeHost {
  readonly instances = new Map<string, FakeHostInstance>();
  readonly stopped: string[] = [];
  /** Ids whose health check never passes (the wait times out). */
  readonly neverReady = new Set<string>();
  /** Make every start fail. */
  failStarts = false;
  /** When set, every start fails with this error (a driver's typed refusal). */
  startError: Error | undefined;
  /** Report URLs Node would refuse. */
  badUrls = false;
  private nextAddress = 2;
  private readonly watchers: ((instance: InstanceRef) => void)[] = [];
  private readyGate: Promise<void> | undefined;

  /** Holds every health check until the returned function is called. */
  holdReadiness(): () => void {
    let release = () => undefined as void;
    this.readyGate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.readyGate = undefined;
      release();
    };
  }

  plant(instance: FakeHostInstance): void {
    this.instances.set(instance.instanceId, instance);
  }

  /** The instance disappears from the host and the driver reports the change (a deleted pod). */
  vanish(instanceId: string): void {
    const instance = this.instances.get(instanceId);
    this.instances.delete(instanceId);
    for (const watcher of this.watchers) watcher({ instanceId, ...(instance ? { app: instance.app } : {}) });
  }

  driver(): RuntimeDriver {
    return {
      name: 'local',
      open: async () => undefined,
      close: async () => undefined,
      synced: () => true,
      watch: (listener) => void this.watchers.push(listener),
      ensureApp: async () => undefined,
      removeApp: async () => undefined,
      start: async (request) => {
        if (this.startError) throw this.startError;
        if (this.failStarts) throw new Error('image not found');
        const slot = this.nextAddress++;
        const url = this.badUrls
          ? 'not a url'
          : `http://10.99.${Math.floor(slot / 250)}.${2 + (slot % 250)}:${request.spec.port}`;
        this.instances.set(request.instanceId, {
          instanceId: request.instanceId,
          app: request.app,
          status: 'running',
          url,
        });
        return { url };
      },
      waitForReady: async (instance, _spec, options) => {
        await this.readyGate;
        const found = this.instances.get(instance.instanceId);
        if (!found || found.status === 'failed') throw new InstanceNotReadyError('exited');
        if (this.neverReady.has(instance.instanceId) || options.timeoutMs < 0)
          throw new InstanceNotReadyError('timeout');
        return { url: found.url ?? instance.url ?? 'http://10.99.0.1:8080' };
      },
      stop: async (instance) => {
        this.stopped.push(instance.instanceId);
        this.instances.delete(instance.instanceId);
      },
      list: async () => [...this.instances.values()].map((instance) => ({ ...instance })),
      logs: async (instance): Promise<InstanceLogLine[] | undefined> =>
        this.instances.has(instance.instanceId)
          ? [{ time: '2026-01-01T00:00:00Z', stream: 'stdout', text: `hello from ${instance.instanceId}` }]
          : undefined,
    };
  }
}
