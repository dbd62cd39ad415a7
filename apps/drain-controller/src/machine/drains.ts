import { randomBytes } from 'node:crypto';
import type { DrainRecord, DrainTarget } from '@sandbox/protocol';
import type { Logger } from 'pino';
import type { DrainStore } from '../store/drain-store';
import { advance, newDrain, type DrainEvent, type DrainRefusal } from './drain-machine';

/** Called after every stored change, to enqueue the step of the drain's (new) phase. */
export type OnChange = (record: DrainRecord) => Promise<void>;

/** Dependencies of {@link createDrains}. */
export interface DrainsDeps {
  store: DrainStore;
  logger: Logger;
  now: () => number;
  onChange: OnChange;
  /** Counts phase changes (metrics). */
  onPhase?: (record: DrainRecord) => void;
  /** @defaultValue random, sortable by time */
  newId?: () => string;
}

/** What {@link Drains.apply} did. */
export type ApplyResult =
  | { kind: 'ok'; record: DrainRecord }
  | { kind: 'refused'; refusal: DrainRefusal; record: DrainRecord }
  | { kind: 'missing' };

/** The drains' one write path: every change goes through {@link advance} and a compare-and-set. */
export interface Drains {
  create(input: {
    reason: string;
    target: DrainTarget;
    windowMs: number;
    quietPeriodMs: number;
  }): Promise<{ kind: 'created'; record: DrainRecord } | { kind: 'in-progress'; activeId: string }>;
  /** Applies an event; retried on a concurrent change. */
  apply(id: string, event: DrainEvent): Promise<ApplyResult>;
  get(id: string): Promise<DrainRecord | undefined>;
}

const MAX_CAS_ATTEMPTS = 20;

/** A drain id: UTC time then randomness, so ids sort by creation and never collide. */
export function newDrainId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/gu, '').replace(/\..*$/u, '');
  return `drain-${stamp}-${randomBytes(4).toString('hex')}`;
}

export function createDrains(deps: DrainsDeps): Drains {
  const { store, logger, now } = deps;

  const changed = async (before: DrainRecord | undefined, after: DrainRecord): Promise<void> => {
    if (before?.phase !== after.phase) {
      const last = after.history.at(-1);
      logger.info(
        {
          drainId: after.id,
          from: before?.phase ?? null,
          phase: after.phase,
          note: last?.note,
          deadline: after.deadline,
        },
        'drain phase changed',
      );
      deps.onPhase?.(after);
    }
    await deps.onChange(after);
  };

  return {
    async create(input) {
      const at = now();
      const record = newDrain({ ...input, id: deps.newId?.() ?? newDrainId(at), now: at });
      const created = await store.create(record);
      if (created !== 'created') return { kind: 'in-progress', activeId: created.activeId };
      await changed(undefined, record);
      return { kind: 'created', record };
    },
    async apply(id, event) {
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
        const current = await store.get(id);
        if (current === undefined) return { kind: 'missing' };
        const next = advance(current.record, event, now());
        if ('refused' in next) return { kind: 'refused', refusal: next.refused, record: current.record };
        if (next.record === current.record) {
          // Nothing changed; still make sure the current phase's step is queued (a crash may have
          // happened between the last change and its enqueue).
          await deps.onChange(current.record);
          return { kind: 'ok', record: current.record };
        }
        const result = await store.update(id, current.version, next.record);
        if (result === 'missing') return { kind: 'missing' };
        if (result === 'ok') {
          await changed(current.record, next.record);
          return { kind: 'ok', record: next.record };
        }
      }
      throw new Error(`drain ${id} kept changing concurrently`);
    },
    async get(id) {
      return (await store.get(id))?.record;
    },
  };
}
