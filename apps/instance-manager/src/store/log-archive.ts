import { InstanceLogLineSchema } from '@sandbox/protocol';
import type { InstanceLogLine } from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import { JsonTextSchema } from './json-text';
import { storeKeys } from './keys';

/** Most lines kept per destroyed instance. */
export const ARCHIVED_LOG_LINES = 1_000;

/** Log lines of destroyed instances, kept as long as their records. */
export function createLogArchive(deps: { redis: Redis; prefix: string; retentionMs: number }) {
  const keys = storeKeys(deps.prefix);
  return {
    async save(id: string, lines: readonly InstanceLogLine[]): Promise<void> {
      if (lines.length === 0) return;
      const key = keys.logs(id);
      await deps.redis
        .multi()
        .del(key)
        .rpush(key, ...lines.slice(-ARCHIVED_LOG_LINES).map((line) => JSON.stringify(line)))
        .pexpire(key, deps.retentionMs)
        .exec();
    },
    /** The last `tail` lines, or undefined when nothing was kept. */
    async read(id: string, tail: number): Promise<InstanceLogLine[] | undefined> {
      const key = keys.logs(id);
      const stored = await deps.redis.lrange(key, -tail, -1);
      if (stored.length === 0) return (await deps.redis.exists(key)) === 1 ? [] : undefined;
      return stored.flatMap((text) => {
        const parsed = JsonTextSchema.pipe(InstanceLogLineSchema).safeParse(text);
        return parsed.success ? [parsed.data] : [];
      });
    },
  };
}

export type LogArchive = ReturnType<typeof createLogArchive>;
