// Every write of a drain record is one of these scripts, so the record, its version, the index and the
// one-active-drain lock change together.

/**
 * Creates a drain unless another is active. KEYS: record, active lock, index. ARGV: id, JSON, created ms.
 * Returns 'created' or the id of the active drain.
 */
export const CREATE_DRAIN_LUA = `
local active = redis.call('GET', KEYS[2])
if active then return active end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'version', '1')
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 'created'
`;

/**
 * Replaces a record if its version is still ARGV[1] (compare-and-set); a terminal record (ARGV[3] = '1')
 * releases the active lock it holds. KEYS: record, active lock. ARGV: expected version, JSON, terminal, id.
 * Returns 'ok', 'stale' or 'missing'.
 */
export const UPDATE_DRAIN_LUA = `
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return 'missing' end
if version ~= ARGV[1] then return 'stale' end
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'version', tostring(tonumber(version) + 1))
if ARGV[3] == '1' and redis.call('GET', KEYS[2]) == ARGV[4] then redis.call('DEL', KEYS[2]) end
return 'ok'
`;
