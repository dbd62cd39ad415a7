import type { InstanceOutcome, InstanceState } from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import { ENTERED_FROM } from '../domain/instance-state';
import {
  createScript,
  endScript,
  flagScript,
  releaseScript,
  reserveScript,
  transitionScript,
  updateScript,
} from './instance-scripts';
import type { InstanceRecord, NewInstance } from './instance-record';
import { newRecordFields, parseRecord } from './instance-record';
import { storeKeys } from './keys';

/** A record with the number of sessions active on it. */
export interface RecordWithSessions {
  record: InstanceRecord;
  sessions: number;
}

/** Outbox flags: set once the matching job is queued. */
export type QueuedFlag = 'readyQueued' | 'withdrawQueued' | 'goneQueued';

type Fields = Record<string, string | number | boolean | undefined>;

function flatten(fields: Fields): string[] {
  return Object.entries(fields).flatMap(([key, value]) =>
    value === undefined ? [] : [key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value)],
  );
}

const pair = (reply: unknown): { ok: boolean; previous: string } => {
  const [ok, previous] = reply as [number, string];
  return { ok: ok === 1, previous };
};

/** Instance records in Redis; every state change is one atomic compare-and-set. */
export function createInstanceStore(deps: { redis: Redis; prefix: string; retentionMs: number }) {
  const { redis, retentionMs } = deps;
  const keys = storeKeys(deps.prefix);

  async function readMany(ids: readonly string[]): Promise<RecordWithSessions[]> {
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hgetall(keys.instance(id)).scard(keys.sessions(id));
    const replies = (await pipeline.exec()) ?? [];
    const found: RecordWithSessions[] = [];
    ids.forEach((_id, index) => {
      const [hashError, hash] = replies[index * 2] ?? [];
      const [countError, count] = replies[index * 2 + 1] ?? [];
      if (hashError || countError) throw hashError ?? countError;
      const record = parseRecord(hash as Record<string, string>);
      if (record) found.push({ record, sessions: Number(count) });
    });
    return found;
  }

  return {
    keys,
    /** Creates a `starting` record; false if the id exists. */
    async create(record: NewInstance): Promise<boolean> {
      const created = await createScript.run(
        redis,
        [keys.instance(record.id), keys.appLive(record.app), keys.live],
        [record.id, ...newRecordFields(record)],
      );
      return created === 1;
    },
    async get(id: string): Promise<RecordWithSessions | undefined> {
      return (await readMany([id]))[0];
    },
    /** Instances that are not gone, of one app or all. */
    async listLive(app?: string): Promise<RecordWithSessions[]> {
      const ids = await redis.smembers(app === undefined ? keys.live : keys.appLive(app));
      return (await readMany(ids.sort())).filter((entry) => entry.record.state !== 'gone');
    },
    /** Gone instances still within the retention, newest first. */
    async listGone(limit = 1_000): Promise<RecordWithSessions[]> {
      return readMany(await redis.zrevrange(keys.gone, 0, limit - 1));
    },
    /** Moves to `to` if the current state may enter it (ENTERED_FROM, or the narrower `from`). */
    async transition(
      id: string,
      to: InstanceState,
      fields: Fields = {},
      from: readonly InstanceState[] = ENTERED_FROM[to],
    ): Promise<{ ok: boolean; previous: string }> {
      const allowed = from.filter((state) => ENTERED_FROM[to].includes(state));
      const reply = await transitionScript.run(
        redis,
        [keys.instance(id)],
        [allowed.join(','), to, ...flatten(fields)],
      );
      return pair(reply);
    },
    /** Sets fields of a live record (only unset ones with `onlyUnset`); false if gone or missing. */
    async update(id: string, fields: Fields, onlyUnset = false): Promise<boolean> {
      const reply = await updateScript.run(
        redis,
        [keys.instance(id)],
        [onlyUnset ? '1' : '0', ...flatten(fields)],
      );
      return reply === 1;
    },
    async markQueued(id: string, flag: QueuedFlag): Promise<void> {
      await flagScript.run(redis, [keys.instance(id)], [flag]);
    },
    /** The terminal transition; an outcome recorded as intent wins. True if this call ended it. */
    async end(
      record: Pick<InstanceRecord, 'id' | 'app'>,
      outcome: InstanceOutcome,
      reason: string,
      now: number,
    ) {
      const reply = await endScript.run(
        redis,
        [keys.instance(record.id), keys.appLive(record.app), keys.live, keys.gone, keys.sessions(record.id)],
        [record.id, now, outcome, reason, retentionMs],
      );
      return reply === 1;
    },
    async reserve(id: string, sessionId: string, now: number, singleSession: boolean) {
      const reply = await reserveScript.run(
        redis,
        [keys.instance(id), keys.sessions(id)],
        [sessionId, now, singleSession ? '1' : '0'],
      );
      const { ok, previous } = pair(reply);
      return { taken: ok, previous };
    },
    async release(
      id: string,
      sessionId: string,
      input: { now: number; singleSession: boolean; deadline: number; reason: string },
    ) {
      const reply = await releaseScript.run(
        redis,
        [keys.instance(id), keys.sessions(id)],
        [sessionId, input.now, input.singleSession ? '1' : '0', input.deadline, input.reason],
      );
      const { ok, previous } = pair(reply);
      return { withdrawing: ok, previous };
    },
  };
}

export type InstanceStore = ReturnType<typeof createInstanceStore>;
