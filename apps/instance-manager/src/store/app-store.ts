import { createHash } from 'node:crypto';
import { AppSpecSchema, AppStatusSchema } from '@sandbox/protocol';
import type { AppSpec, AppStatus, RegistrationRefusal } from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { canonicalJson, templateHash } from '../domain/template-hash';
import { JsonTextSchema } from './json-text';
import { storeKeys } from './keys';
import { luaScript } from '@sandbox/queue';
import { recordRefusal, refusalsOf } from './registration-refusals';

/** An app as stored: its parsed spec (defaults applied) and bookkeeping. */
export interface StoredApp {
  name: string;
  spec: AppSpec;
  specDigest: string;
  templateHash: string;
  status: AppStatus;
  createdAt: number;
  updatedAt: number;
  /** Node's latest refusals of the app's instances, newest first. */
  registrationRefusals: RegistrationRefusal[];
}

const StoredAppSchema = z.object({
  name: z.string().min(1),
  spec: JsonTextSchema.pipe(AppSpecSchema),
  specDigest: z.string().min(1),
  templateHash: z.string().min(1),
  status: AppStatusSchema,
  createdAt: z.coerce.number().int(),
  updatedAt: z.coerce.number().int(),
});

/** KEYS: app, apps. ARGV: name, spec, digest, template hash, now → created | updated | unchanged. */
const PUT_LUA = `
local digest = redis.call('HGET', KEYS[1], 'specDigest')
local status = redis.call('HGET', KEYS[1], 'status')
if digest == ARGV[3] and status == 'active' then return 'unchanged' end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'spec', ARGV[2], 'specDigest', ARGV[3],
  'templateHash', ARGV[4], 'status', 'active', 'updatedAt', ARGV[5])
redis.call('HSETNX', KEYS[1], 'createdAt', ARGV[5])
redis.call('SADD', KEYS[2], ARGV[1])
if not digest then return 'created' end
return 'updated'`;
const putScript = luaScript<'created' | 'updated' | 'unchanged'>('sandboxImPutApp', 2, PUT_LUA);

/** KEYS: app. ARGV: now → 1 if the app exists. */
const DELETE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'deleting', 'updatedAt', ARGV[1])
return 1`;
const deleteScript = luaScript<number>('sandboxImMarkAppDeleting', 1, DELETE_LUA);

/** KEYS: app, apps, app live set. ARGV: name → 1 if a deleting app with no instances was removed. */
const REMOVE_LUA = `
if redis.call('HGET', KEYS[1], 'status') ~= 'deleting' then return 0 end
if redis.call('SCARD', KEYS[3]) > 0 then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return 1`;
const removeScript = luaScript<number>('sandboxImRemoveApp', 3, REMOVE_LUA);

function digestOf(spec: AppSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex').slice(0, 16);
}

/** App specs in Redis. `put` is idempotent: the same spec twice changes nothing. */
export function createAppStore(deps: { redis: Redis; prefix: string }) {
  const { redis } = deps;
  const keys = storeKeys(deps.prefix);

  const get = async (name: string): Promise<StoredApp | undefined> => {
    const hash = await redis.hgetall(keys.app(name));
    if (Object.keys(hash).length === 0) return undefined;
    const parsed = StoredAppSchema.safeParse(hash);
    return parsed.success ? { ...parsed.data, registrationRefusals: refusalsOf(hash) } : undefined;
  };

  return {
    get,
    async list(): Promise<StoredApp[]> {
      const names = (await redis.smembers(keys.apps)).sort();
      const found = await Promise.all(names.map(get));
      return found.filter((app): app is StoredApp => app !== undefined);
    },
    async put(name: string, spec: AppSpec, now: number): Promise<'created' | 'updated' | 'unchanged'> {
      return putScript.run(
        redis,
        [keys.app(name), keys.apps],
        [name, canonicalJson(spec), digestOf(spec), templateHash(spec), now],
      );
    },
    /** Marks the app deleting; false if it does not exist. */
    async markDeleting(name: string, now: number): Promise<boolean> {
      return (await deleteScript.run(redis, [keys.app(name)], [now])) === 1;
    },
    /** Keeps Node's refusal of one of the app's instances for the app's status (nothing if the app is gone). */
    recordRefusal(name: string, refusal: RegistrationRefusal): Promise<void> {
      return recordRefusal(redis, keys.app(name), refusal);
    },
    /** Removes a deleting app once none of its instances is left. */
    async removeIfDone(name: string): Promise<boolean> {
      return (await removeScript.run(redis, [keys.app(name), keys.apps, keys.appLive(name)], [name])) === 1;
    },
  };
}

export type AppStore = ReturnType<typeof createAppStore>;
