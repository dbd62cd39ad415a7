import { summarizeZodIssues, type AdapterDrainStatus } from '@sandbox/protocol';
import { fencedExec } from '@sandbox/lease';
import type { FencedCommand, LeaseElector } from '@sandbox/lease';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  AdapterDrainStatusSchema,
  OPEN_DRAIN,
  RegistrationRecordSchema,
  type RegistrationRecord,
} from './registration-record';

/** Where registrations live in Redis. */
export interface RegistrationStore {
  /** Every stored registration; unreadable ones are logged (without values) and skipped. */
  loadAll(): Promise<RegistrationRecord[]>;
  save(record: RegistrationRecord): Promise<void>;
  remove(instanceId: string): Promise<void>;
  loadDrain(): Promise<AdapterDrainStatus>;
  saveDrain(status: AdapterDrainStatus): Promise<void>;
}

/** A stored record, or undefined (logged without values) when it cannot be used. */
function parseRecord(
  logger: Logger,
  instanceId: string,
  text: string | null,
): RegistrationRecord | undefined {
  if (text === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    logger.error({ instanceId }, 'stored registration is not JSON; skipped');
    return undefined;
  }
  const parsed = RegistrationRecordSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = summarizeZodIssues(parsed.error);
  logger.error({ instanceId, issues }, 'stored registration is invalid; skipped');
  return undefined;
}

/**
 * Redis keys (persistent, under `prefix`): `<prefix>:registrations` (set of instance ids),
 * `<prefix>:registration:<instanceId>` (the record as JSON, credential included: Redis is the one
 * place it may be kept) and `<prefix>:drain` (the drain mode).
 */
export function createRegistrationStore(deps: {
  redis: Redis;
  prefix: string;
  logger: Logger;
  /**
   * The service's lease: every write goes through its fence (Redis refuses it from a replica that no
   * longer holds the lease). @defaultValue none (one process, plain writes)
   */
  lease?: LeaseElector;
}): RegistrationStore {
  const { redis, prefix, logger, lease } = deps;
  const write = async (commands: FencedCommand[]): Promise<void> => {
    if (lease !== undefined) return void (await fencedExec(lease, commands));
    const results = (await redis.multi(commands.map((command) => [...command])).exec()) ?? [];
    for (const [error] of results) if (error) throw error;
  };
  const indexKey = `${prefix}:registrations`;
  const recordKey = (instanceId: string): string => `${prefix}:registration:${instanceId}`;
  const drainKey = `${prefix}:drain`;

  return {
    async loadAll() {
      const ids = (await redis.smembers(indexKey)).sort();
      if (ids.length === 0) return [];
      const texts = await redis.mget(ids.map(recordKey));
      return ids.flatMap((id, index) => parseRecord(logger, id, texts[index] ?? null) ?? []);
    },
    async save(record) {
      const id = record.instance.instanceId;
      await write([
        ['SET', recordKey(id), JSON.stringify(record)],
        ['SADD', indexKey, id],
      ]);
    },
    async remove(instanceId) {
      await write([
        ['DEL', recordKey(instanceId)],
        ['SREM', indexKey, instanceId],
      ]);
    },
    async loadDrain() {
      const text = await redis.get(drainKey);
      if (text === null) return OPEN_DRAIN;
      const parsed = AdapterDrainStatusSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      logger.error(
        { issues: summarizeZodIssues(parsed.error) },
        'stored drain mode is invalid; treating it as open',
      );
      return OPEN_DRAIN;
    },
    async saveDrain(status) {
      await write([['SET', drainKey, JSON.stringify(status)]]);
    },
  };
}
