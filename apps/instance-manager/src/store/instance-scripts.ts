import { luaScript } from '@sandbox/queue';

// Every script checks the record's state and changes it in one step: the state machine holds even
// when two operations (or two processes after a restart) race for the same instance.

/** KEYS: record, app live set, live set. ARGV: id, field, value, ... → 1 created, 0 existed. */
const CREATE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;
export const createScript = luaScript<number>('sandboxImCreateInstance', 3, CREATE_LUA);

/** KEYS: record. ARGV: allowed states (comma list), new state, field, value, ... → {1|0, previous state}. */
const TRANSITION_LUA = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {0, ''} end
for allowed in string.gmatch(ARGV[1], '[^,]+') do
  if allowed == state then
    redis.call('HSET', KEYS[1], 'state', ARGV[2], unpack(ARGV, 3))
    return {1, state}
  end
end
return {0, state}`;
export const transitionScript = luaScript<unknown>('sandboxImTransitionInstance', 1, TRANSITION_LUA);

/**
 * KEYS: record. ARGV: '1' to set only fields not yet set, field, value, ... Never recreates a record
 * that has expired. → 1 if the record exists and is not gone.
 */
const UPDATE_LUA = `
local state = redis.call('HGET', KEYS[1], 'state')
if (not state) or state == 'gone' then return 0 end
for i = 2, #ARGV, 2 do
  if ARGV[1] == '1' then redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`;
export const updateScript = luaScript<number>('sandboxImUpdateInstance', 1, UPDATE_LUA);

/** KEYS: record. ARGV: field. Sets the field to '1' on a record that exists (outbox flags). */
const FLAG_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], '1')
return 1`;
export const flagScript = luaScript<unknown>('sandboxImFlagInstance', 1, FLAG_LUA);

/**
 * The one terminal transition. KEYS: record, app live set, live set, gone set, sessions.
 * ARGV: id, now, fallback outcome, fallback reason, retention ms. An outcome recorded earlier as the
 * intent (endOutcome, endReason) wins over the fallback. → 1 if this call ended the instance.
 */
const END_LUA = `
local state = redis.call('HGET', KEYS[1], 'state')
if (not state) or state == 'gone' then return 0 end
local outcome = redis.call('HGET', KEYS[1], 'endOutcome') or ARGV[3]
local reason = redis.call('HGET', KEYS[1], 'endReason') or redis.call('HGET', KEYS[1], 'reason') or ARGV[4]
redis.call('HSET', KEYS[1], 'state', 'gone', 'goneAt', ARGV[2], 'outcome', outcome, 'goneQueued', '0')
if reason ~= '' then redis.call('HSET', KEYS[1], 'reason', reason) end
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[5]))
redis.call('DEL', KEYS[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;
export const endScript = luaScript<number>('sandboxImEndInstance', 5, END_LUA);

/**
 * A session was reserved. KEYS: record, sessions. ARGV: session id, now, '1' for single-session.
 * A ready single-session instance becomes taken. → {1|0 taken now, state before}.
 */
const RESERVE_LUA = `
local state = redis.call('HGET', KEYS[1], 'state')
if (not state) or state == 'gone' then return {0, state or ''} end
redis.call('SADD', KEYS[2], ARGV[1])
if ARGV[3] == '1' and state == 'ready' then
  redis.call('HSET', KEYS[1], 'state', 'taken', 'takenAt', ARGV[2], 'takenBy', ARGV[1])
  return {1, state}
end
return {0, state}`;
export const reserveScript = luaScript<unknown>('sandboxImReserveSession', 2, RESERVE_LUA);

/**
 * A session ended. KEYS: record, sessions. ARGV: session id, now, '1' for single-session, withdraw
 * deadline, reason. A ready or taken single-session instance starts withdrawing (it never serves a
 * second session). → {1|0 withdrawing now, state before}.
 */
const RELEASE_LUA = `
local state = redis.call('HGET', KEYS[1], 'state')
if (not state) or state == 'gone' then return {0, state or ''} end
redis.call('SREM', KEYS[2], ARGV[1])
if ARGV[3] == '1' and (state == 'ready' or state == 'taken') then
  redis.call('HSET', KEYS[1], 'state', 'withdrawing', 'withdrawAt', ARGV[2], 'withdrawImmediate', '1',
    'withdrawDeadline', ARGV[4], 'reason', ARGV[5], 'withdrawQueued', '0')
  return {1, state}
end
return {0, state}`;
export const releaseScript = luaScript<unknown>('sandboxImReleaseSession', 2, RELEASE_LUA);
