import { TicketStateSchema, type PayerLiability, type TicketState } from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import type { TicketKeys } from './keys';
import { parseRecord, RecordField, type TicketRecord } from './ticket-record';

/** A page of records, newest first; `nextCursor` is the offset of the next page. */
export interface RecordPage {
  readonly records: TicketRecord[];
  readonly nextCursor?: string;
}

/** Figures for /metrics, read in one round trip. */
export interface StoreStats {
  readonly counts: Record<TicketState, number>;
  /** receivedAt of the oldest ticket still owed a delivery. */
  readonly oldestUndeliveredAt?: number;
  /** Window of the undelivered ticket closest to its deadline. */
  readonly nearestDeadline?: { windowStart: number; deadlineAt: number };
  /** Sum of the face values (wei) of the tickets still owed a delivery: what is lost if none lands. */
  readonly undeliveredFaceValue: bigint;
}

/** Read-only views over the records (API, metrics, reconciliation). */
export interface TicketQueries {
  list(state: TicketState | undefined, limit: number, cursor: number): Promise<RecordPage>;
  liabilities(): Promise<PayerLiability[]>;
  stats(): Promise<StoreStats>;
  /** Hashes still owed a delivery, `count` at a time from rank `start` (earliest deadline first). */
  undelivered(start: number, count: number): Promise<string[]>;
  /** The state of each hash (undefined when there is no record). */
  statesOf(hashes: readonly string[]): Promise<(TicketState | undefined)[]>;
}

export function createTicketQueries(redis: Redis, keys: TicketKeys): TicketQueries {
  const states = TicketStateSchema.options;
  const undeliveredFaceValue = async (): Promise<bigint> => {
    const hashes = await redis.zrange(keys.due, 0, -1);
    if (hashes.length === 0) return 0n;
    const pipeline = redis.pipeline();
    for (const hash of hashes) pipeline.hget(keys.record(hash), RecordField.faceValue);
    let total = 0n;
    for (const [error, faceValue] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      if (typeof faceValue === 'string') total += BigInt(faceValue);
    }
    return total;
  };
  return {
    async list(state, limit, cursor) {
      const index = state === undefined ? keys.all : keys.state(state);
      const hashes = await redis.zrevrange(index, cursor, cursor + limit - 1);
      const pipeline = redis.pipeline();
      for (const hash of hashes) pipeline.hgetall(keys.record(hash));
      const replies = hashes.length === 0 ? [] : ((await pipeline.exec()) ?? []);
      const records = replies.flatMap(([error, fields]) => {
        if (error) throw error;
        const record = parseRecord(fields as Record<string, string>);
        return record ? [record] : [];
      });
      return hashes.length < limit ? { records } : { records, nextCursor: String(cursor + limit) };
    },

    async liabilities() {
      const payers = await redis.smembers(keys.payers);
      const result: PayerLiability[] = [];
      for (const sender of payers) {
        const hashes = await redis.smembers(keys.payer(sender));
        const pipeline = redis.pipeline();
        for (const hash of hashes)
          pipeline.hmget(keys.record(hash), RecordField.faceValue, RecordField.state);
        const replies = hashes.length === 0 ? [] : ((await pipeline.exec()) ?? []);
        let pending = 0n;
        let tickets = 0;
        let undelivered = 0;
        for (const [error, reply] of replies) {
          if (error) throw error;
          const [faceValue, state] = reply as [string | null, string | null];
          if (faceValue === null || state === null) continue;
          pending += BigInt(faceValue);
          tickets += 1;
          if (state === 'received' || state === 'delivering') undelivered += 1;
        }
        if (tickets > 0) result.push({ sender, pendingFaceValue: pending.toString(), tickets, undelivered });
      }
      return result.sort((a, b) => (BigInt(b.pendingFaceValue) > BigInt(a.pendingFaceValue) ? 1 : -1));
    },

    async stats() {
      const pipeline = redis.pipeline();
      for (const state of states) pipeline.zcard(keys.state(state));
      pipeline.zrange(keys.state('received'), 0, 0, 'WITHSCORES');
      pipeline.zrange(keys.state('delivering'), 0, 0, 'WITHSCORES');
      pipeline.zrange(keys.due, 0, 0);
      const replies = ((await pipeline.exec()) ?? []).map(([error, reply]) => {
        if (error) throw error;
        return reply;
      });
      const counts = Object.fromEntries(states.map((state, i) => [state, Number(replies[i])])) as Record<
        TicketState,
        number
      >;
      const firstScores = [replies[states.length], replies[states.length + 1]]
        .map((reply) => (reply as string[])[1])
        .filter((score): score is string => score !== undefined)
        .map(Number);
      const nearest = (replies[states.length + 2] as string[])[0];
      const window =
        nearest === undefined
          ? undefined
          : await redis.hmget(keys.record(nearest), RecordField.windowStart, RecordField.deadlineAt);
      return {
        counts,
        undeliveredFaceValue: await undeliveredFaceValue(),
        ...(firstScores.length > 0 ? { oldestUndeliveredAt: Math.min(...firstScores) } : {}),
        ...(window?.[0] && window[1]
          ? { nearestDeadline: { windowStart: Number(window[0]), deadlineAt: Number(window[1]) } }
          : {}),
      };
    },

    undelivered: (start, count) => redis.zrange(keys.due, start, start + count - 1),

    async statesOf(hashes) {
      if (hashes.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const hash of hashes) pipeline.hget(keys.record(hash), RecordField.state);
      const replies = (await pipeline.exec()) ?? [];
      return replies.map(([error, state]) => {
        if (error) throw error;
        return state === null ? undefined : (state as TicketState);
      });
    },
  };
}
