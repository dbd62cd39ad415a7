import type { ChainableCommander, Redis } from 'ioredis';

/** The Redis keys of one lease (all under its name, so one prefix scan finds them). */
export interface LeaseKeys {
  /** `"<token> <holder>"` with a TTL while held; absent when free. */
  lease: string;
  /** The fencing counter: INCR'd on every acquisition, never reset. Persistent. */
  counter: string;
  /** The highest token that has written through the fence; lower tokens are refused. */
  fence: string;
  /** Capped list of `"<token> <holder> <epoch ms>"`, one entry per holder's first fenced write. */
  log: string;
}

/** The keys of the lease stored at `key`. */
export function leaseKeys(key: string): LeaseKeys {
  return { lease: key, counter: `${key}:counter`, fence: `${key}:fence`, log: `${key}:log` };
}

// Grants the lease when it is free or already this holder's (a holder that gave up locally gets a new
// token, so its old one is stale from now on). Reply: {token, ''} or {0, current value}.
const ACQUIRE_LUA = `
local current = redis.call('GET', KEYS[1])
if current then
  local space = string.find(current, ' ', 1, true)
  if string.sub(current, space + 1) ~= ARGV[1] then return {0, current} end
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. ' ' .. ARGV[1], 'PX', ARGV[2])
return {token, ''}
`;

// Extends the TTL only while the value is still exactly this holding. Reply: 1 renewed, 0 lost.
const RENEW_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

// Deletes the lease only while it is this holding (never another holder's). Reply: 1 or 0.
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

// The fence: runs the JSON list of commands only while the lease is exactly the writer's holding and
// no higher token has written before; records the token of each new writer in the capped log.
// Reply: {'ok', results} or {'stale', current value or ''}.
const FENCED_EXEC_LUA = `
local current = redis.call('GET', KEYS[1])
local token = tonumber(ARGV[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if current ~= ARGV[1] or token < last then return {'stale', current or ''} end
if token > last then
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('LPUSH', KEYS[3], ARGV[2] .. ' ' .. ARGV[3])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
end
local results = {}
for index, command in ipairs(cjson.decode(ARGV[5])) do
  results[index] = redis.call(unpack(command))
end
return {'ok', results}
`;

/** The lease's commands, defined on a connection with ioredis `defineCommand`. */
export interface LeaseCommands {
  sandboxLeaseAcquire(
    lease: string,
    counter: string,
    holder: string,
    ttlMs: number,
  ): Promise<[number, string]>;
  sandboxLeaseRenew(lease: string, value: string, ttlMs: number): Promise<number>;
  sandboxLeaseRelease(lease: string, value: string): Promise<number>;
  sandboxLeaseFencedExec(
    lease: string,
    fence: string,
    log: string,
    value: string,
    token: number,
    logEntry: string,
    logLength: number,
    commands: string,
  ): Promise<['ok', unknown[]] | ['stale', string]>;
}

/** A connection (or pipeline) with the lease's commands. */
export type LeaseRedis = Redis & LeaseCommands;
export type LeasePipeline = ChainableCommander & LeaseCommands;

const defined = new WeakSet<Redis>();

/** Defines the lease's commands on `redis` once (EVALSHA, reloaded by ioredis after a Redis restart). */
export function withLeaseCommands(redis: Redis): LeaseRedis {
  if (!defined.has(redis)) {
    redis.defineCommand('sandboxLeaseAcquire', { numberOfKeys: 2, lua: ACQUIRE_LUA });
    redis.defineCommand('sandboxLeaseRenew', { numberOfKeys: 1, lua: RENEW_LUA });
    redis.defineCommand('sandboxLeaseRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
    redis.defineCommand('sandboxLeaseFencedExec', { numberOfKeys: 3, lua: FENCED_EXEC_LUA });
    defined.add(redis);
  }
  return redis as LeaseRedis;
}
