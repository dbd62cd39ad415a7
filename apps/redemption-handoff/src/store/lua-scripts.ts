// Every state change of a ticket record happens in one of these scripts, so a record and its index
// entries change together and a terminal state is written at most once. Key names derive from the
// prefix inside the scripts (single Redis instance, as BullMQ's own scripts assume here).

const STATE_SETS = `
local terminal = { redeemed = true, already_used = true, expired = true, rejected = true, expired_undelivered = true }
local undelivered = { received = true, delivering = true }
`;

/**
 * Creates a record in `received` unless one exists. KEYS: record, state:received, all, due, payer set,
 * payers. ARGV: hash, ticket JSON, sender, face value, receivedAt, window start, deadline.
 * Returns 'created' or the existing record's state.
 */
export const CREATE_TICKET_LUA = `
local state = redis.call('HGET', KEYS[1], 'st')
if state then return state end
redis.call('HSET', KEYS[1], 't', ARGV[2], 'st', 'received', 'snd', ARGV[3], 'fv', ARGV[4],
  'rcv', ARGV[5], 'ws', ARGV[6], 'dl', ARGV[7], 'att', '0')
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('SADD', KEYS[6], ARGV[3])
return 'created'
`;

/**
 * Moves a record to ARGV[3] if its state is one of the comma-separated ARGV[4]; sets the field/value
 * pairs from ARGV[6] on. KEYS: record. ARGV: prefix, hash, target, allowed states, now, fields...
 * Entering `delivering` counts an attempt. Leaving the undelivered states drops the deadline entry;
 * a terminal state releases the payer's liability and stamps `term`.
 * Returns {'ok'|'refused'|'missing', previous state}.
 */
const TRANSITION_FUNCTION = `${STATE_SETS}
local function transition(record, prefix, hash, target, allowed, now, fieldsFrom)
  local state = redis.call('HGET', record, 'st')
  if not state then return { 'missing', '' } end
  if not string.find(',' .. allowed .. ',', ',' .. state .. ',', 1, true) then return { 'refused', state } end
  if state ~= target then
    redis.call('ZREM', prefix .. ':state:' .. state, hash)
    redis.call('ZADD', prefix .. ':state:' .. target, redis.call('HGET', record, 'rcv'), hash)
    redis.call('HSET', record, 'st', target)
  end
  for i = fieldsFrom, #ARGV, 2 do redis.call('HSET', record, ARGV[i], ARGV[i + 1]) end
  if target == 'delivering' then
    redis.call('HINCRBY', record, 'att', 1)
    redis.call('HSET', record, 'lat', now)
  end
  if not undelivered[target] then redis.call('ZREM', prefix .. ':due', hash) end
  if terminal[target] and not terminal[state] then
    local sender = redis.call('HGET', record, 'snd')
    local payer = prefix .. ':payer:' .. sender
    redis.call('SREM', payer, hash)
    if redis.call('SCARD', payer) == 0 then redis.call('SREM', prefix .. ':payers', sender) end
    redis.call('HSET', record, 'term', now)
    redis.call('ZADD', prefix .. ':terminal', now, hash)
  end
  return { 'ok', state }
end
`;

/**
 * Moves a record to ARGV[3] if its state is one of the comma-separated ARGV[4]; sets the field/value
 * pairs from ARGV[6] on. KEYS: record. ARGV: prefix, hash, target, allowed states, now, fields...
 * Entering `delivering` counts an attempt. Leaving the undelivered states drops the deadline entry;
 * a terminal state releases the payer's liability and stamps `term`.
 * Returns {'ok'|'refused'|'missing', previous state}.
 */
export const TRANSITION_TICKET_LUA = `${TRANSITION_FUNCTION}
return transition(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], 6)
`;

/**
 * A delivery attempt's start in one round trip: reads the record and, if its state is one of the
 * comma-separated ARGV[3] and its deadline (`dl`) is still ahead of ARGV[4], moves it to `delivering`
 * (counting the attempt) as TRANSITION_TICKET_LUA does. KEYS: record. ARGV: prefix, hash, allowed, now.
 * Returns {'missing'}, {'refused', state}, or {'ok'|'expired', field, value, ...} with the record's
 * fields as they were before the attempt (an expired record is left unchanged).
 */
export const BEGIN_DELIVERY_LUA = `${TRANSITION_FUNCTION}
local record = KEYS[1]
local fields = redis.call('HGETALL', record)
if #fields == 0 then return { 'missing' } end
local state = redis.call('HGET', record, 'st')
if not state then return { 'missing' } end
if not string.find(',' .. ARGV[3] .. ',', ',' .. state .. ',', 1, true) then return { 'refused', state } end
local result = 'expired'
if tonumber(ARGV[4]) < tonumber(redis.call('HGET', record, 'dl')) then
  result = transition(record, ARGV[1], ARGV[2], 'delivering', ARGV[3], ARGV[4], #ARGV + 1)[1]
end
table.insert(fields, 1, result)
return fields
`;

/**
 * Deletes a terminal record and its index entries (retention). KEYS: record. ARGV: prefix, hash.
 * Returns 1 when deleted, 0 when the record is missing or not terminal.
 */
export const DELETE_TERMINAL_LUA = `${STATE_SETS}
local prefix, hash = ARGV[1], ARGV[2]
local state = redis.call('HGET', KEYS[1], 'st')
if not state then
  redis.call('ZREM', prefix .. ':terminal', hash)
  return 0
end
if not terminal[state] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', prefix .. ':state:' .. state, hash)
redis.call('ZREM', prefix .. ':all', hash)
redis.call('ZREM', prefix .. ':terminal', hash)
return 1
`;

/** Sets field/value pairs (ARGV) on a record only if it exists. KEYS: record. */
export const ANNOTATE_TICKET_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`;
