import { RegistrationRefusalSchema, type RegistrationRefusal } from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import { luaScript } from '@sandbox/queue';

/** Refusals kept per app: enough to show every failing instance of a small app, bounded for a large one. */
export const MAX_REFUSALS = 16;

/** Field prefix in the app's hash: the refusals go with the app when it is removed. */
const FIELD = 'refusal:';

/** KEYS: app. ARGV: field, JSON → 1 if the app exists (a refusal never revives a removed app). */
const RECORD_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
const recordScript = luaScript<number>('sandboxImRecordRefusal', 1, RECORD_LUA);

/** The refusals among an app hash's fields, newest first, at most {@link MAX_REFUSALS}. */
export function refusalsOf(hash: Record<string, string>): RegistrationRefusal[] {
  const found: RegistrationRefusal[] = [];
  for (const [field, text] of Object.entries(hash)) {
    if (!field.startsWith(FIELD)) continue;
    try {
      const parsed = RegistrationRefusalSchema.safeParse(JSON.parse(text));
      if (parsed.success) found.push(parsed.data);
    } catch {
      // An unreadable entry is skipped; the next refusal of that instance replaces it.
    }
  }
  return found.sort((a, b) => b.at.localeCompare(a.at)).slice(0, MAX_REFUSALS);
}

/**
 * Records Node's refusal of an instance in its app's hash (one entry per instance, the latest wins)
 * and drops the oldest beyond {@link MAX_REFUSALS}. A concurrent refusal of the same app can leave one
 * extra entry until the next call; reads never show more than the cap.
 */
export async function recordRefusal(
  redis: Redis,
  appKey: string,
  refusal: RegistrationRefusal,
): Promise<void> {
  const stored = await recordScript.run(
    redis,
    [appKey],
    [`${FIELD}${refusal.instanceId}`, JSON.stringify(refusal)],
  );
  if (stored !== 1) return;
  const hash = await redis.hgetall(appKey);
  const kept = new Set(refusalsOf(hash).map((entry) => `${FIELD}${entry.instanceId}`));
  const extra = Object.keys(hash).filter((field) => field.startsWith(FIELD) && !kept.has(field));
  if (extra.length > 0) await redis.hdel(appKey, ...extra);
}
