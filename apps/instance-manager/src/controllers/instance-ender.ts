import type { InstanceOutcome } from '@sandbox/protocol';
import type { LifecycleContext } from './lifecycle-context';

/** An instance to act on. */
export interface InstanceKey {
  id: string;
  app: string;
}

const LOG_LINES_KEPT = 1_000;

/**
 * Withdrawing and ending instances. Ending is: record the intended outcome (the first intent wins),
 * keep the logs, destroy the instance, then the one terminal transition and `instance-gone`. A crash
 * anywhere in between is finished by the next full pass with the recorded intent.
 */
export function createInstanceEnder(ctx: LifecycleContext, isStarting: (id: string) => boolean) {
  const { store, driver, clock, logger, serial } = ctx;

  async function archiveLogs(key: InstanceKey): Promise<void> {
    try {
      const lines = await driver.logs({ instanceId: key.id, app: key.app }, LOG_LINES_KEPT);
      if (lines) await ctx.logs.save(key.id, lines);
    } catch (error) {
      logger.warn({ err: error, instanceId: key.id }, 'keeping instance logs failed');
    }
  }

  /** Destroys the instance and records its one terminal outcome. Throws if destroying failed. */
  function finish(key: InstanceKey, outcome: InstanceOutcome, reason: string): Promise<void> {
    return serial
      .run(key.id, async () => {
        const live = await store.update(key.id, { endOutcome: outcome, endReason: reason }, true);
        if (!live) return;
        await archiveLogs(key);
        await driver.stop({ instanceId: key.id, app: key.app });
        if (await store.end(key, outcome, reason, clock.now())) {
          const ended = await store.get(key.id);
          if (ended) {
            await ctx.emitter.gone(ended.record);
            ctx.metrics.countEnded(ended.record.outcome ?? outcome);
            logger.info({ instanceId: key.id, app: key.app, outcome: ended.record.outcome }, 'instance gone');
          }
        }
      })
      .finally(() => ctx.onSettled(key.app));
  }

  /** {@link finish}, logging instead of throwing (the next full pass retries). */
  const finishQuietly = (key: InstanceKey, outcome: InstanceOutcome, reason: string) =>
    finish(key, outcome, reason).catch((error: unknown) =>
      logger.error({ err: error, instanceId: key.id }, 'destroying instance failed; will retry'),
    );

  /** Stops a starting instance before it is announced; its start task ends it if one is running. */
  async function cancel(key: InstanceKey, reason: string): Promise<void> {
    const now = clock.now();
    const fields = { withdrawAt: now, reason, endOutcome: 'evicted', endReason: reason };
    const moved = await serial.run(key.id, () =>
      store.transition(key.id, 'withdrawing', fields, ['starting']),
    );
    if (moved.ok && !isStarting(key.id)) await finishQuietly(key, 'evicted', reason);
    // It became ready meanwhile (it was announced): withdraw it through the adapter instead.
    if (!moved.ok && moved.previous === 'ready') await withdraw(key, false, reason);
  }

  /** Asks the adapter to stop sending work to an announced instance (scale-down, deletion). */
  async function withdraw(key: InstanceKey, immediate: boolean, reason: string): Promise<void> {
    const now = clock.now();
    const deadline = now + (immediate ? ctx.timing.withdrawTimeoutMs : ctx.timing.withdrawGraceMs);
    const moved = await serial.run(key.id, async () => {
      const current = await store.get(key.id);
      if (current?.record.state === 'starting') return undefined;
      const fields = {
        withdrawAt: now,
        withdrawImmediate: immediate,
        withdrawDeadline: deadline,
        reason,
        withdrawQueued: false,
      };
      const result = await store.transition(key.id, 'withdrawing', fields);
      const after = result.ok ? await store.get(key.id) : undefined;
      if (after) await ctx.emitter.withdraw(after.record);
      return result;
    });
    if (moved === undefined) await cancel(key, reason);
  }

  /** Sends `instance-withdraw` for an instance that started withdrawing elsewhere (session release). */
  const announceWithdrawal = (key: InstanceKey) =>
    serial.run(key.id, async () => {
      const current = await store.get(key.id);
      if (current?.record.state === 'withdrawing') await ctx.emitter.withdraw(current.record);
    });

  /**
   * Records that the instance must end (the intent survives a crash: the next full pass finishes it)
   * and destroys it in the background. `onlyWhen` limits it to one state.
   */
  async function endSoon(
    key: InstanceKey,
    outcome: InstanceOutcome,
    reason: string,
    onlyWhen?: 'withdrawing',
  ): Promise<boolean> {
    const current = await store.get(key.id);
    if (!current || current.record.state === 'gone') return false;
    if (onlyWhen && current.record.state !== onlyWhen) return false;
    if (!(await store.update(key.id, { endOutcome: outcome, endReason: reason }, true))) return false;
    void finishQuietly(key, outcome, reason);
    return true;
  }

  /** The adapter unregistered the runner: the instance can be destroyed. */
  const acknowledge = (key: InstanceKey, reason: string) => endSoon(key, 'completed', reason, 'withdrawing');

  return { finish, finishQuietly, cancel, withdraw, announceWithdrawal, acknowledge, endSoon };
}

export type InstanceEnder = ReturnType<typeof createInstanceEnder>;
