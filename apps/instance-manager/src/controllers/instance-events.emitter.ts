import type { INSTANCE_EVENTS_QUEUE } from '@sandbox/protocol';
import type { Producer } from '@sandbox/queue';
import type { Logger } from 'pino';
import { instanceReadyPayload } from '../domain/instance-offer';
import type { InstanceRecord } from '../store/instance-record';
import type { InstanceStore } from '../store/instance-store';

/**
 * Deterministic job ids, one per instance and event: a second `add` with the same id is a no-op in
 * BullMQ, so re-sending after a crash never duplicates an event. Persistent.
 */
export const eventJobId = {
  ready: (id: string) => `ready-${id}`,
  withdraw: (id: string) => `withdraw-${id}`,
  gone: (id: string) => `gone-${id}`,
};

/**
 * The outbox of `instance-events`: a state change is committed in the record first (with its flag
 * `readyQueued`/`withdrawQueued`/`goneQueued` at 0), then the job is added under its deterministic
 * id, then the flag is set. A crash in between leaves the flag at 0 and {@link sweep} adds the job
 * again, which BullMQ deduplicates by id.
 */
export function createInstanceEventsEmitter(deps: {
  producer: Producer<typeof INSTANCE_EVENTS_QUEUE>;
  store: InstanceStore;
  logger: Logger;
}) {
  const { producer, store, logger } = deps;

  const attempt = async (
    record: InstanceRecord,
    event: string,
    add: () => Promise<unknown>,
    flag: Parameters<InstanceStore['markQueued']>[1],
  ) => {
    try {
      await add();
      await store.markQueued(record.id, flag);
      return true;
    } catch (error) {
      logger.warn({ err: error, instanceId: record.id, event }, 'queueing instance event failed; will retry');
      return false;
    }
  };

  const emitter = {
    ready(record: InstanceRecord): Promise<boolean> {
      const { url, readyAt } = record;
      if (url === undefined || readyAt === undefined) return Promise.resolve(false);
      const payload = instanceReadyPayload({
        instanceId: record.id,
        app: record.app,
        url,
        offer: record.offer,
        readyAt,
      });
      return attempt(
        record,
        'instance-ready',
        () => producer.add('instance-ready', payload, { jobId: eventJobId.ready(record.id) }),
        'readyQueued',
      );
    },
    withdraw(record: InstanceRecord): Promise<boolean> {
      const data = {
        instanceId: record.id,
        app: record.app,
        reason: record.reason ?? 'withdrawn',
        immediate: record.withdrawImmediate ?? false,
      };
      return attempt(
        record,
        'instance-withdraw',
        () => producer.add('instance-withdraw', data, { jobId: eventJobId.withdraw(record.id) }),
        'withdrawQueued',
      );
    },
    gone(record: InstanceRecord): Promise<boolean> {
      const data = {
        instanceId: record.id,
        app: record.app,
        outcome: record.outcome ?? 'failed',
        ...(record.reason ? { reason: record.reason } : {}),
      };
      return attempt(
        record,
        'instance-gone',
        () => producer.add('instance-gone', data, { jobId: eventJobId.gone(record.id) }),
        'goneQueued',
      );
    },
    /**
     * What is still owed for one record: `instance-ready` for a ready or taken instance, the withdrawal
     * of an announced withdrawing one, `instance-gone` for a gone one.
     */
    async settle(record: InstanceRecord): Promise<void> {
      const announced = record.readyAt !== undefined;
      if ((record.state === 'ready' || record.state === 'taken') && !record.readyQueued)
        await emitter.ready(record);
      if (record.state === 'withdrawing' && announced && !record.withdrawQueued)
        await emitter.withdraw(record);
      if (record.state === 'gone' && !record.goneQueued) await emitter.gone(record);
    },
  };
  return emitter;
}

export type InstanceEventsEmitter = ReturnType<typeof createInstanceEventsEmitter>;
