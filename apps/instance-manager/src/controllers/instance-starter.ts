import { Semaphore } from 'async-mutex';
import { InstanceUrlSchema, newInstanceId } from '@sandbox/protocol';
import type { AppSpec } from '@sandbox/protocol';
import { offerOf } from '../domain/instance-offer';
import {
  InstanceNotReadyError,
  InstanceRefusedError,
  InsufficientCapacityError,
} from '../drivers/runtime-driver';
import type { StoredApp } from '../store/app-store';
import type { InstanceRecord } from '../store/instance-record';
import type { InstanceEnder } from './instance-ender';
import type { LifecycleContext } from './lifecycle-context';

function failureReason(error: unknown): string {
  if (
    error instanceof InstanceNotReadyError ||
    error instanceof InsufficientCapacityError ||
    error instanceof InstanceRefusedError
  )
    return error.message;
  return 'instance failed to start';
}

/**
 * Starting instances. The record (`starting`) is written before anything is created, so whatever a
 * crash leaves on the host has a record or is unknown (and destroyed). The start itself runs in the
 * background; `starting()` tells the full pass which instances are in flight.
 */
export function createInstanceStarter(
  ctx: LifecycleContext,
  ender: () => InstanceEnder,
  concurrency: number,
) {
  const { store, driver, clock, logger, serial } = ctx;
  const inFlight = new Map<string, Promise<void>>();
  const semaphore = new Semaphore(concurrency);

  /** starting → ready and `instance-ready`, in the instance's serial order. False if it was cancelled. */
  const markReady = (record: InstanceRecord, url: string) =>
    serial.run(record.id, async () => {
      const readyAt = clock.now();
      const moved = await store.transition(record.id, 'ready', { url, readyAt });
      if (!moved.ok) return false;
      await ctx.emitter.ready({ ...record, state: 'ready', url, readyAt, readyQueued: false });
      ctx.backoff.forgive(record.app, 'start');
      ctx.metrics.observeReady((readyAt - record.createdAt) / 1000);
      logger.info(
        { instanceId: record.id, app: record.app, url, ms: readyAt - record.createdAt },
        'instance ready',
      );
      return true;
    });

  /** Starts the instance (unless `adopted`: it runs already), waits for its health check, announces it. */
  async function bringUp(
    record: InstanceRecord,
    spec: AppSpec,
    adopted: { url?: string } | undefined,
  ): Promise<void> {
    const key = { id: record.id, app: record.app };
    let url = adopted?.url;
    try {
      if (!adopted) {
        await semaphore.acquire();
        try {
          const current = await store.get(record.id);
          if (current?.record.state !== 'starting')
            return void (await ender().finishQuietly(key, 'evicted', 'cancelled'));
          url = (
            await driver.start({
              instanceId: record.id,
              app: record.app,
              templateHash: record.templateHash,
              spec,
            })
          ).url;
        } finally {
          semaphore.release();
        }
      }
      const timing = { timeoutMs: ctx.timing.readyTimeoutMs, intervalMs: ctx.timing.probeIntervalMs };
      const ready = await driver.waitForReady({ instanceId: record.id, app: record.app, url }, spec, timing);
      // Node registers this URL; one it would refuse must never reach instance-ready.
      if (!InstanceUrlSchema.safeParse(ready.url).success)
        throw new Error('the driver returned an invalid instance URL');
      if (!(await markReady(record, ready.url))) await ender().finishQuietly(key, 'evicted', 'cancelled');
    } catch (error) {
      logger.warn({ err: error, instanceId: record.id, app: record.app }, 'instance did not start');
      ctx.backoff.failed(record.app, 'start', clock.now());
      await ender().finishQuietly(key, 'failed', failureReason(error));
    }
  }

  function track(record: InstanceRecord, spec: AppSpec, adopted: { url?: string } | undefined): void {
    const task = bringUp(record, spec, adopted).finally(() => {
      inFlight.delete(record.id);
      ctx.onSettled(record.app);
    });
    inFlight.set(record.id, task);
  }

  return {
    /** Records and starts one new instance of the app. */
    async create(app: StoredApp): Promise<string> {
      const id = newInstanceId();
      const offer = offerOf(app.spec);
      const record = {
        id,
        app: app.name,
        kind: offer.kind,
        templateHash: app.templateHash,
        offer,
        createdAt: clock.now(),
      };
      if (!(await store.create(record))) throw new Error('instance id collision');
      track(
        { ...record, state: 'starting', readyQueued: false, withdrawQueued: false, goneQueued: false },
        app.spec,
        undefined,
      );
      return id;
    },
    /** Resumes a `starting` record whose instance runs (after a restart): probe, then announce. */
    adopt(record: InstanceRecord, spec: AppSpec, url: string | undefined): void {
      if (!inFlight.has(record.id)) track(record, spec, url === undefined ? {} : { url });
    },
    isStarting: (id: string) => inFlight.has(id),
    /** Resolves once the instance's start in flight (if any) has settled. */
    settled: (id: string): Promise<void> => (inFlight.get(id) ?? Promise.resolve()).catch(() => undefined),
    starting: () => [...inFlight.keys()],
    /** Resolves when no start is in flight. */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
  };
}

export type InstanceStarter = ReturnType<typeof createInstanceStarter>;
