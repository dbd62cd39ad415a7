import type { HostInstance, InstanceRef } from '../drivers/runtime-driver';
import type { InstanceRecord } from '../store/instance-record';
import type { InstanceEnder } from './instance-ender';
import type { InstanceStarter } from './instance-starter';
import type { LifecycleContext } from './lifecycle-context';

/** Fixed reasons of terminal outcomes decided by the host sync. */
export const HostSyncReason = {
  interrupted: 'start interrupted',
  stopped: 'instance stopped running',
  appGone: 'app deleted',
  withdrawTimeout: 'withdrawal timed out',
} as const;

/**
 * Compares instance records with what the driver finds, after a restart and then periodically:
 * adopts running instances it knows, finishes records whose instance is gone or broken, enforces
 * withdrawal deadlines, and destroys instances it has no live record of. Instances being started by
 * this process are left alone (their start task owns them).
 */
export function createHostSync(
  ctx: LifecycleContext,
  lifecycle: { starter: InstanceStarter; ender: InstanceEnder },
) {
  const { store, driver, clock, logger, apps } = ctx;
  const { starter, ender } = lifecycle;

  async function syncRecord(
    record: InstanceRecord,
    host: HostInstance | undefined,
    now: number,
  ): Promise<void> {
    const key = { id: record.id, app: record.app };
    const alive = host !== undefined && host.status !== 'failed';
    // An ending was decided (and recorded) before a crash or a failed destroy: carry it out.
    if (record.endOutcome)
      return ender.finishQuietly(key, record.endOutcome, record.endReason ?? record.reason ?? 'ended');
    switch (record.state) {
      case 'starting': {
        const app = await apps.get(record.app);
        if (!alive) return ender.finishQuietly(key, 'failed', HostSyncReason.interrupted);
        if (app?.status !== 'active') return ender.finishQuietly(key, 'evicted', HostSyncReason.appGone);
        return starter.adopt(record, app.spec, host.url);
      }
      case 'ready':
      case 'taken':
        if (!alive) await ender.finishQuietly(key, 'failed', HostSyncReason.stopped);
        return;
      case 'withdrawing':
        if (record.readyAt === undefined)
          return ender.finishQuietly(key, 'evicted', record.reason ?? 'cancelled');
        if (!alive) return ender.finishQuietly(key, 'failed', HostSyncReason.stopped);
        if (record.withdrawDeadline !== undefined && now >= record.withdrawDeadline) {
          return ender.finishQuietly(key, 'evicted', HostSyncReason.withdrawTimeout);
        }
        return;
      default:
        return;
    }
  }

  /**
   * One instance the driver reported changed (its pod was deleted, ended or became ready): the same
   * comparison as the full pass, for its record alone. Instances being started are left to their
   * start task, and instances without a live record to the full pass (which also sees records
   * written while it lists).
   */
  async function syncInstance(instance: InstanceRef): Promise<void> {
    if (starter.isStarting(instance.instanceId)) return;
    const entry = await store.get(instance.instanceId);
    if (!entry || entry.record.state === 'gone' || starter.isStarting(instance.instanceId)) return;
    const host = (await driver.list()).find((found) => found.instanceId === instance.instanceId);
    await syncRecord(entry.record, host, clock.now());
  }

  return Object.assign(syncHost, { syncInstance });

  async function syncHost(): Promise<void> {
    const listedAt = clock.now();
    const busy = new Set(starter.starting());
    const hosts = await driver.list();
    const live = await store.listLive();
    for (const id of starter.starting()) busy.add(id);
    const byId = new Map(hosts.map((host) => [host.instanceId, host]));
    const known = new Set<string>();
    for (const { record } of live) {
      known.add(record.id);
      // Created after the listing began, or started by this process: the host view may not show it yet.
      if (busy.has(record.id) || starter.isStarting(record.id) || record.createdAt >= listedAt) continue;
      await syncRecord(record, byId.get(record.id), clock.now());
    }
    for (const host of hosts) {
      if (known.has(host.instanceId) || busy.has(host.instanceId) || starter.isStarting(host.instanceId))
        continue;
      logger.warn(
        { instanceId: host.instanceId, app: host.app },
        'destroying an instance without a live record',
      );
      const target = { instanceId: host.instanceId, ...(host.app ? { app: host.app } : {}) };
      // In the instance's serial order, after any ending of it still in progress.
      await ctx.serial
        .run(host.instanceId, () => driver.stop(target))
        .catch((error: unknown) => {
          logger.error(
            { err: error, instanceId: host.instanceId },
            'destroying unknown instance failed; will retry',
          );
        });
    }
  }
}
