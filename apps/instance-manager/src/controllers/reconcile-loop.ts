import type { InstanceState } from '@sandbox/protocol';
import type { RecordWithSessions } from '../store/instance-store';
import { createCoalescer } from './keyed-serial';
import type { LifecycleContext } from './lifecycle-context';

const owesEvent = ({ record }: RecordWithSessions) =>
  ((record.state === 'ready' || record.state === 'taken') && !record.readyQueued) ||
  (record.state === 'withdrawing' && record.readyAt !== undefined && !record.withdrawQueued) ||
  (record.state === 'gone' && !record.goneQueued);

/**
 * Drives reconciliation: app triggers (coalesced per app, from the API, events and settled
 * instances) and a periodic full pass (host sync, outbox sweep, every app). The first full pass after
 * start-up is the restart recovery; readiness waits for it.
 */
export function createReconcileLoop(
  ctx: LifecycleContext,
  steps: { syncHost: () => Promise<void>; reconcileApp: (app: string) => Promise<void> },
  intervalMs: number,
) {
  const { store, apps, logger, clock } = ctx;
  const coalescer = createCoalescer(steps.reconcileApp, (app, error) =>
    logger.error({ err: error, app }, 'reconciling app failed'),
  );
  const retries = new Set<string>();
  let stopped = true;
  let shutdown = new AbortController();
  let firstPassDone = false;
  let sleeping: AbortController | undefined;
  let loopDone: Promise<void> = Promise.resolve();

  async function sweepOutbox(live: RecordWithSessions[]): Promise<void> {
    const owed = [...live, ...(await store.listGone())].filter(owesEvent);
    for (const { record } of owed) {
      await ctx.serial.run(record.id, async () => {
        const fresh = await store.get(record.id);
        if (fresh) await ctx.emitter.settle(fresh.record);
      });
    }
  }

  async function fullPass(): Promise<void> {
    await steps.syncHost();
    const live = await store.listLive();
    await sweepOutbox(live);
    const names = new Set([
      ...(await apps.list()).map((app) => app.name),
      ...live.map((entry) => entry.record.app),
    ]);
    await Promise.all([...names].map((name) => coalescer.trigger(name)));
    const counts = new Map<string, { app: string; state: InstanceState; count: number }>();
    for (const { record } of await store.listLive()) {
      const key = `${record.app}/${record.state}`;
      const entry = counts.get(key) ?? { app: record.app, state: record.state, count: 0 };
      entry.count += 1;
      counts.set(key, entry);
    }
    ctx.metrics.setCounts([...counts.values()]);
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      try {
        await fullPass();
        firstPassDone = true;
      } catch (error) {
        logger.error({ err: error }, 'full reconcile pass failed');
      }
      if (stopped) break;
      sleeping = new AbortController();
      await clock.sleep(intervalMs, sleeping.signal);
    }
  }

  return {
    trigger: (app: string) => (stopped ? Promise.resolve() : coalescer.trigger(app)),
    /** Reconciles the app again after `ms` (failure backoff); one pending retry per app. */
    retryLater(app: string, ms: number): void {
      if (retries.has(app)) return;
      retries.add(app);
      void clock.sleep(ms, shutdown.signal).then(() => {
        retries.delete(app);
        if (!stopped) void coalescer.trigger(app);
      });
    },
    /** Runs a full pass now (tests, and the bench's settle step). */
    fullPass,
    start(): void {
      if (!stopped) return;
      stopped = false;
      shutdown = new AbortController();
      loopDone = loop();
    },
    async stop(): Promise<void> {
      stopped = true;
      sleeping?.abort();
      shutdown.abort();
      await loopDone;
      await coalescer.idle();
    },
    recovered: () => firstPassDone,
  };
}

export type ReconcileLoop = ReturnType<typeof createReconcileLoop>;
