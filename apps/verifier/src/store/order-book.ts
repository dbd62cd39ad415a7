import { createHash } from 'node:crypto';
import type { CreateEvaluationResponse } from '@sandbox/protocol';
import { CreateEvaluationResponseSchema } from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import { z } from 'zod';

const OrderSchema = z.strictObject({
  /** sha256 of the order's canonical body: a key reused for another order is refused. */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/u),
  response: CreateEvaluationResponseSchema,
  /** Set once the run is queued; a replay of an order whose queueing failed queues it again. */
  queued: z.boolean(),
});
export type Order = z.infer<typeof OrderSchema>;

/** What claiming an idempotency key found. */
export type Claim = { kind: 'new' } | { kind: 'replay'; order: Order } | { kind: 'conflict' };

/** Orders by `Idempotency-Key`, so a retried order runs (and pays) once. */
export interface OrderBook {
  /** Claims `key` for this order atomically (SET NX with the retention as TTL). */
  claim(key: string, body: unknown, response: CreateEvaluationResponse): Promise<Claim>;
  markQueued(key: string): Promise<void>;
}

/** sha256 of JSON with sorted object keys: one order's fingerprint whatever its field order. */
export function fingerprintOf(body: unknown): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([name, inner]) => [name, sorted(inner)]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(sorted(body)))
    .digest('hex');
}

export function createOrderBook(redis: Redis, keyPrefix: string, ttlSeconds: number): OrderBook {
  // The client's key is hashed: it is the client's to choose, and never a Redis key or a log field.
  const keyOf = (key: string) =>
    `${keyPrefix}:order:${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
  return {
    async claim(key, body, response) {
      const fingerprint = fingerprintOf(body);
      const order: Order = { fingerprint, response, queued: false };
      const set = await redis.set(keyOf(key), JSON.stringify(order), 'EX', ttlSeconds, 'NX');
      if (set === 'OK') return { kind: 'new' };
      const text = await redis.get(keyOf(key));
      // Expired between the two calls: the key is free again, and this order takes it.
      if (text === null) return this.claim(key, body, response);
      const found = OrderSchema.parse(JSON.parse(text));
      return found.fingerprint === fingerprint ? { kind: 'replay', order: found } : { kind: 'conflict' };
    },
    async markQueued(key) {
      const text = await redis.get(keyOf(key));
      if (text === null) return;
      const order = OrderSchema.parse(JSON.parse(text));
      await redis.set(keyOf(key), JSON.stringify({ ...order, queued: true }), 'KEEPTTL', 'XX');
    },
  };
}
