import type { JobHandlers } from '@sandbox/queue';
import type { SESSION_EVENTS_QUEUE } from '@sandbox/protocol';
import type { InstanceEnder } from '../controllers/instance-ender';
import type { LifecycleContext } from '../controllers/lifecycle-context';

/** Instance reasons are at most 256 characters. */
function truncateReason(text: string): string {
  return text.length <= 256 ? text : `${text.slice(0, 255)}…`;
}

/** Fixed reasons recorded for session-driven withdrawals. */
export const SessionReason = { sessionEnded: 'session ended' } as const;

/**
 * Handlers of `session-events` (adapter → instance-manager). Each is idempotent (compare-and-set in
 * Redis) and quick: destroying an instance happens in the background, so a slow `podman rm` never
 * delays the next reservation's replacement.
 */
export function sessionEventHandlers(
  ctx: LifecycleContext,
  deps: { ender: InstanceEnder; trigger: (app: string) => void },
): JobHandlers<typeof SESSION_EVENTS_QUEUE> {
  const { store, clock, logger, serial, backoff } = ctx;
  return {
    async 'session-reserved'(event) {
      const found = await store.get(event.instanceId);
      if (!found)
        return logger.warn({ instanceId: event.instanceId }, 'session reserved on an unknown instance');
      const { record } = found;
      const single = record.kind === 'single-session';
      const result = await serial.run(record.id, () =>
        store.reserve(record.id, event.sessionId, clock.now(), single),
      );
      backoff.forgive(record.app, 'registration');
      // The taken instance leaves the warm pool: its replacement starts now, not at the next pass.
      deps.trigger(record.app);
      if (single && !result.taken && result.previous !== 'taken') {
        logger.warn(
          { instanceId: record.id, state: result.previous },
          'session reserved on a single-session instance that was not ready',
        );
      }
    },
    async 'session-released'(event) {
      const found = await store.get(event.instanceId);
      if (!found) return;
      const { record } = found;
      const now = clock.now();
      const single = record.kind === 'single-session';
      const input = {
        now,
        singleSession: single,
        deadline: now + ctx.timing.withdrawTimeoutMs,
        reason: SessionReason.sessionEnded,
      };
      const result = await serial.run(record.id, () => store.release(record.id, event.sessionId, input));
      if (result.withdrawing) await deps.ender.announceWithdrawal({ id: record.id, app: record.app });
      deps.trigger(record.app);
    },
    async 'runner-withdrawn'(event) {
      const found = await store.get(event.instanceId);
      if (!found) return;
      await deps.ender.acknowledge(
        { id: found.record.id, app: found.record.app },
        found.record.reason ?? 'withdrawn',
      );
    },
    async 'registration-failed'(event) {
      const found = await store.get(event.instanceId);
      if (!found || found.record.state === 'gone') return;
      const { record } = found;
      backoff.failed(record.app, 'registration', clock.now());
      logger.warn(
        { instanceId: record.id, app: record.app, status: event.status, reason: event.reason },
        'Node refused to register the instance',
      );
      // Node's own reason goes to the app's status and the instance's end reason, where an operator looks.
      const { status, reason, at } = event;
      await ctx.apps.recordRefusal(record.app, { instanceId: record.id, status, reason, at });
      await deps.ender.endSoon(
        { id: record.id, app: record.app },
        'failed',
        truncateReason(`registration refused by Node (${status}): ${reason}`),
      );
    },
  };
}
