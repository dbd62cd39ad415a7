import type { InstanceView } from '../domain/plan-app';
import { planApp } from '../domain/plan-app';
import type { AppStore } from '../store/app-store';
import type { InstanceStore, RecordWithSessions } from '../store/instance-store';
import type { InstanceEnder } from './instance-ender';
import type { InstanceStarter } from './instance-starter';
import type { LifecycleContext } from './lifecycle-context';

/** The planner's view of a record. */
export function toView({ record, sessions }: RecordWithSessions): InstanceView | undefined {
  if (record.state === 'gone') return undefined;
  return {
    id: record.id,
    state: record.state,
    templateHash: record.templateHash,
    sessions: record.kind === 'single-session' ? (record.state === 'taken' ? 1 : 0) : sessions,
    createdAt: record.createdAt,
  };
}

/** What {@link createAppReconciler} reads and calls (narrowed so unit tests can pass fakes). */
export type AppReconcilerContext = Pick<LifecycleContext, 'clock' | 'driver' | 'backoff' | 'logger'> & {
  apps: Pick<AppStore, 'get' | 'removeIfDone'>;
  store: Pick<InstanceStore, 'listLive'>;
};

/**
 * Reconciles one app: reads its spec and its instance records, plans, and applies the plan. Level-based
 * and idempotent: it only looks at what is stored now, so running it again (or after a crash) is safe.
 */
export function createAppReconciler(
  ctx: AppReconcilerContext,
  lifecycle: {
    starter: Pick<InstanceStarter, 'create'>;
    ender: Pick<InstanceEnder, 'cancel' | 'withdraw'>;
  },
  retryLater: (app: string, ms: number) => void,
) {
  const { apps, store, clock, driver, backoff } = ctx;
  return async function reconcileApp(name: string): Promise<void> {
    const stored = await apps.get(name);
    const records = await store.listLive(name);
    const active = stored?.status === 'active' ? stored : undefined;
    if (active) await driver.ensureApp(name, active.spec);
    const waitMs = active ? backoff.waitMs(name, clock.now()) : 0;
    const plan = planApp({
      spec: active?.spec,
      templateHash: active?.templateHash,
      deleting: active === undefined,
      instances: records.flatMap((entry) => toView(entry) ?? []),
      canCreate: waitMs === 0,
    });
    for (const { id, reason } of plan.cancel) await lifecycle.ender.cancel({ id, app: name }, reason);
    for (const { id, immediate, reason } of plan.withdraw)
      await lifecycle.ender.withdraw({ id, app: name }, immediate, reason);
    for (let index = 0; active && index < plan.create; index += 1) await lifecycle.starter.create(active);
    if (waitMs > 0) retryLater(name, waitMs);
    // The app's runtime objects go before its record: if removing them fails, the app stays
    // `deleting` (every full pass lists it) and is tried again until the removal succeeds.
    if (plan.removeApp && stored) {
      await driver.removeApp(name);
      if (await apps.removeIfDone(name)) ctx.logger.info({ app: name }, 'app removed');
    }
  };
}
