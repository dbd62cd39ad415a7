import { DrainRecordSchema, type DrainRecord } from '@sandbox/protocol';
import { luaScript } from '@sandbox/queue';
import type { Redis } from 'ioredis';
import { isTerminal } from '../machine/drain-machine';
import { CREATE_DRAIN_LUA, UPDATE_DRAIN_LUA } from './lua-scripts';

const createDrainScript = luaScript<string>('sandboxDcCreate', 3, CREATE_DRAIN_LUA);
const updateDrainScript = luaScript<UpdateResult>('sandboxDcUpdate', 2, UPDATE_DRAIN_LUA);

/** A record with the version its next compare-and-set must match. */
export interface VersionedDrain {
  readonly record: DrainRecord;
  readonly version: string;
}

/** What a compare-and-set did. */
export type UpdateResult = 'ok' | 'stale' | 'missing';

/** Drain records in Redis: a hash per drain (JSON + version), an index by creation, one active lock. */
export interface DrainStore {
  /** Stores a new drain unless one is active; returns 'created' or the active drain's id. */
  create(record: DrainRecord): Promise<'created' | { activeId: string }>;
  get(id: string): Promise<VersionedDrain | undefined>;
  /** Replaces the record if it is still at `version`. */
  update(id: string, version: string, record: DrainRecord): Promise<UpdateResult>;
  /** The active drain's id, if any. */
  activeId(): Promise<string | undefined>;
  /** Newest first, at most `limit`. */
  list(limit: number): Promise<DrainRecord[]>;
}

/** Key names; persistent: changing the prefix forgets every drain, including an active one. */
export function drainKeys(prefix: string) {
  return {
    record: (id: string) => `${prefix}:drain:${id}`,
    active: `${prefix}:active`,
    index: `${prefix}:drains`,
  };
}

function parse(json: string | null | undefined): DrainRecord | undefined {
  return json === null || json === undefined ? undefined : DrainRecordSchema.parse(JSON.parse(json));
}

export function createDrainStore(redis: Redis, prefix: string): DrainStore {
  const keys = drainKeys(prefix);
  return {
    async create(record) {
      const created = Date.parse(record.createdAt);
      const reply = await createDrainScript.run(
        redis,
        [keys.record(record.id), keys.active, keys.index],
        [record.id, JSON.stringify(DrainRecordSchema.parse(record)), created],
      );
      return reply === 'created' ? 'created' : { activeId: reply };
    },
    async get(id) {
      const [json, version] = await redis.hmget(keys.record(id), 'json', 'version');
      const record = parse(json);
      return record === undefined || version === null || version === undefined
        ? undefined
        : { record, version };
    },
    async update(id, version, record) {
      return updateDrainScript.run(
        redis,
        [keys.record(id), keys.active],
        [version, JSON.stringify(DrainRecordSchema.parse(record)), isTerminal(record.phase) ? '1' : '0', id],
      );
    },
    async activeId() {
      return (await redis.get(keys.active)) ?? undefined;
    },
    async list(limit) {
      const ids = await redis.zrevrange(keys.index, 0, limit - 1);
      if (ids.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hget(keys.record(id), 'json');
      const replies = (await pipeline.exec()) ?? [];
      return replies.flatMap(([error, json]) => {
        if (error) throw error;
        const record = parse(json as string | null);
        return record === undefined ? [] : [record];
      });
    },
  };
}
